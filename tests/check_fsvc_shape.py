#!/usr/bin/env python3
"""The shape fsvc/ keeps (issue 23): no function body over 100 lines in
fsvc/*.c, no declaration with more than 8 parameters in fsvc/*.h, and no
branch on the kind of engine backend in fsvc/*.c. Prints each breach;
exit 1 when there is one. Usage: check_fsvc_shape.py [ROOT] | --self-test"""
import glob, os, re, sys, tempfile

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


def breaches(root):
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
    return bad


def self_test():
    """Each kind of breach planted in a small tree is found; the clean tree passes."""
    ok_c = 'int f(int a)\n{\n    return a;\n}\n'
    ok_h = 'int f(int a, int (*g)(int, int), int c);\n'
    plants = {
        'long': ('a.c', 'int g(void)\n{\n' + '    x();\n' * MAX_LINES + '}\n', 'is 10'),
        'wide': ('a.h', 'int w(' + ', '.join(f'int a{i}' for i in range(MAX_PARAMS + 1)) + ');\n',
                 'takes 9 parameters'),
        'kind': ('b.c', 'int k(const bnl_ctx *ctx)\n{\n    return ctx->backend == BNL_CUDA;\n}\n',
                 'asks the backend kind'),
    }
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, 'fsvc'))
        for name, text in (('ok.c', ok_c), ('ok.h', ok_h)):
            open(os.path.join(d, 'fsvc', name), 'w').write(text)
        if breaches(d):
            print('self-test: a clean tree reported', breaches(d))
            return 1
        for what, (name, text, words) in plants.items():
            path = os.path.join(d, 'fsvc', name)
            open(path, 'w').write(text)
            found = breaches(d)
            os.remove(path)
            if len(found) != 1 or words not in found[0]:
                print(f'self-test: the planted {what} breach was not found: {found}')
                return 1
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    bad = breaches(sys.argv[1] if len(sys.argv) > 1 else '.')
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
