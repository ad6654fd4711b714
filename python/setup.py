"""Puts the libfsvc.so.0 that `make` built into the package (fsvc/_lib.py
looks for it next to itself), and the CUDA plugin fsvc-cuda.so where there
is one (libfsvc looks for it next to itself), so that `pip install
./python` gives a package that works outside the source tree. The metadata is in
pyproject.toml; this file only adds the library."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
BUILT = os.path.join(HERE, os.pardir, os.environ.get("FSVC_BUILD", "build"), "libfsvc.so.0")


class BuildPy(build_py):
    def run(self):
        super().run()
        if not os.path.exists(BUILT):
            raise SystemExit("fsvc: %s not found: run 'make' in %s first (or set "
                             "FSVC_BUILD to the build folder)" % (os.path.normpath(BUILT),
                                                                   os.path.dirname(HERE)))
        dst = os.path.join(self.build_lib, "fsvc", "libfsvc.so.0")
        shutil.copyfile(os.path.realpath(BUILT), dst)  # the file, not the link
        os.chmod(dst, 0o755)
        # an nvcc build's CUDA backend, which libfsvc loads from beside itself
        plugin = os.path.join(os.path.dirname(BUILT), "fsvc-cuda.so")
        if os.path.exists(plugin):
            shutil.copyfile(plugin, os.path.join(self.build_lib, "fsvc", "fsvc-cuda.so"))
            os.chmod(os.path.join(self.build_lib, "fsvc", "fsvc-cuda.so"), 0o755)


class BinaryDistribution(Distribution):
    """A wheel for this platform: it holds a compiled library."""
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
