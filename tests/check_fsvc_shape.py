#!/usr/bin/env python3
"""The shape fsvc/ keeps (issue 23): no function body over 100 lines in
fsvc/*.c, no declaration with more than 8 parameters in fsvc/*.h, and no
branch on the kind of engine backend in fsvc/*.c. Prints each breach;
exit 1 when there is one. Usage: check_fsvc_shape.py [ROOT]"""
import glob, os, re, sys

MAX_LINES, MAX_PARAMS = 100, 8
# how fsvc/ would ask which backend it runs on
BACKEND_KIND = re.compile(r'\bbnl_gpu_props\b|\bbnl_normal_products\b|->backend\s*[!=]='
                          r'|\bBNL_(CUDA|CPU|REF)\b|strcmp\([^;]*"(cuda|cpu|ref)"')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def long_functions(path):
    """(name, lines, first line) of each top-level body over MAX_LINES."""
    lines = strip_comments(open(path).read()).split('\n')
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith('{') or re.match(r'^[A-Za-z_].*\)\s*\{\s*$', lines[i]):
            j = i
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].rstrip().endswith((';', '}')) \
                    and not lines[j - 1].startswith('#'):
                j -= 1
            name = re.findall(r'(\w+)\s*\(', ' '.join(lines[j:i + 1]))
            k = i + 1
            while k < len(lines) and not lines[k].startswith('}'):
                k += 1
            if k - i + 1 > MAX_LINES:
                out.append((name[0] if name else '?', k - i + 1, j + 1))
            i = k
        i += 1
    return out


def count_params(args):
    depth, n = 0, 1
    for c in args:
        depth += c == '('
        depth -= c == ')'
        n += c == ',' and depth == 0
    return n


def wide_declarations(path):
    text = strip_comments(open(path).read())
    decl = re.compile(r'\b(\w+)\s*\(((?:[^;{}()]|\([^()]*\))*)\)\s*;')
    for m in decl.finditer(text):
        args = m.group(2).strip()
        if args and args != 'void' and count_params(args) > MAX_PARAMS:
            yield m.group(1), count_params(args), text.count('\n', 0, m.start()) + 1


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad = []
    for p in sorted(glob.glob(os.path.join(root, 'fsvc', '*.c'))):
        for name, n, line in long_functions(p):
            bad.append(f'{p}:{line}: {name} is {n} lines (at most {MAX_LINES})')
        for ln, text in enumerate(strip_comments(open(p).read()).split('\n'), 1):
            if BACKEND_KIND.search(text):
                bad.append(f'{p}:{ln}: asks the backend kind: {text.strip()}')
    for p in sorted(glob.glob(os.path.join(root, 'fsvc', '*.h'))):
        for name, n, line in wide_declarations(p):
            bad.append(f'{p}:{line}: {name} takes {n} parameters (at most {MAX_PARAMS})')
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
