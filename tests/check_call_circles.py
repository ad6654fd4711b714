#!/usr/bin/env python3
"""check_call_circles.py - no circle of calls between the files of fsvc/.

  python3 tests/check_call_circles.py [ROOT]     check ROOT/fsvc/*.c (default .)
  python3 tests/check_call_circles.py --self-test

Each fsvc_* function defined (not static) in a file of fsvc/ is that
file's; a call of it from another file is an edge. A circle of edges
(train.c -> sparse_train.c -> train.c) is printed and fails: the include
check (tools/check_includes.sh) cannot see one, since every file includes
the same internal header. Comments are ignored; the parse is textual
(fsvc/ defines its functions at the start of a line).
"""
import glob
import os
import re
import sys
import tempfile

DEF = re.compile(r'^(?!static)[a-z_][a-z0-9_ \*]*?\b(fsvc_[a-z0-9_]+)\(', re.M)
CALL = re.compile(r'\b(fsvc_[a-z0-9_]+)\(')


def circles(root):
    files = sorted(glob.glob(os.path.join(root, 'fsvc', '*.c')))
    text = {f: re.sub(r'/\*.*?\*/', '', open(f).read(), flags=re.S) for f in files}
    owner = {}
    for f in files:
        for m in DEF.finditer(text[f]):
            owner.setdefault(m.group(1), f)
    edges = {f: set() for f in files}
    for f in files:
        for m in CALL.finditer(text[f]):
            g = owner.get(m.group(1))
            if g and g != f:
                edges[f].add(g)
    # strongly connected components (Tarjan), iterative over small graphs
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in files:
        if v not in index:
            visit(v)
    return out, edges


def report(root):
    found, edges = circles(root)
    for comp in found:
        print('check_call_circles: a circle of calls between ' +
              ', '.join(os.path.relpath(f, root) for f in comp))
        for f in comp:
            for g in sorted(edges[f] & set(comp)):
                print('  %s -> %s' % (os.path.relpath(f, root), os.path.relpath(g, root)))
    return 1 if found else 0


def self_test():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, 'fsvc'))
        def put(name, body):
            with open(os.path.join(d, 'fsvc', name), 'w') as fh:
                fh.write(body)
        put('a.c', 'int fsvc_a(void)\n{ return fsvc_b(); }\n')
        put('b.c', 'int fsvc_b(void)\n{ return 0; /* fsvc_a() */ }\n')
        if circles(d)[0]:
            print('check_call_circles: self-test: a comment counted as a call')
            return 1
        put('b.c', 'int fsvc_b(void)\n{ return fsvc_a(); }\n')
        if len(circles(d)[0]) != 1:
            print('check_call_circles: self-test: the circle a.c <-> b.c not found')
            return 1
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    rc = report(root)
    if rc == 0:
        print('check_call_circles: no circle of calls in fsvc/')
    sys.exit(rc)
