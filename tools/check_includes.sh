#!/bin/bash
# check_includes.sh - the include graph of fsvc runs one way.
#
#   bash tools/check_includes.sh [ROOT]     check the tree at ROOT (default .)
#   bash tools/check_includes.sh --self-test
#
# Reads every #include "..." of base/ datasets/ layers/ cuda/ fsvc/ tools/
# (.c .h .cu), resolves it (next to the file, then from ROOT, as -I. does),
# puts each file in a layer and fails, printing each offending edge, on
#   - an include that does not resolve to a file of the tree;
#   - a file in no layer (new files must be placed here);
#   - an edge to a layer the source may not use (upward or sideways);
#   - an edge from above the engine to a private engine header;
#   - a circle of includes.
# Layers, bottom to top, and what each may include (besides itself):
#   base        base/                                       -
#   types       layers/bnl_types.h bnl_names.c              base
#   backif      layers/bnl_backend_ops.h act.h act_hd.h kernels.h round_hd.h types base
#   backend     layers/kern_* kernels.c epi* act_avx*, cuda/ backif types base
#   engine      layers/ (the rest: bnl.h, bnl.c, cpu_*, ...)  backif types base
# (the engine reaches a backend only through its interface: kernels.h,
# act.h, bnl_backend_ops.h; cuda/load.c hands it the device table at run time)
#   ds_core     datasets/fsvc_data.h datasets.h io.c dataset.c csr.c *_write.c   base
#   ds_loaders  datasets/loaders.h idx* libsvm*.c png.c jpeg.c image.c pngdir*.c stream.c slice_comm.c slice_agree.c weights_load.c  ds_core base
#   ds_load     datasets/load.c slice.c                     ds_loaders ds_core base
#   fsvc        fsvc/                                       engine* types ds_core base
#   tools       tools/                                      fsvc engine* types ds_core base
# engine*: the public engine headers layers/bnl.h and layers/sparse.h (the
# sparse layer) only (and bnl_types.h);
# tools may include fsvc/ headers but not fsvc/internal.h.
set -u

layer_of() { # path relative to ROOT -> layer name, or "" when unplaced
    case "$1" in
    base/*) echo base ;;
    layers/bnl_types.h | layers/bnl_names.c) echo types ;;
    layers/bnl_backend_ops.h | layers/act.h | layers/act_hd.h | layers/kernels.h | layers/round_hd.h) echo backif ;;
    layers/kern_* | layers/kernels.c | layers/epi.c | layers/epi_*.c | \
        layers/epi_body.h | layers/act_avx2.h | layers/act_avx512.h | layers/act_sse2.h | \
        layers/act_simd_body.h | cuda/*) echo backend ;;
    layers/*) echo engine ;;
    datasets/fsvc_data.h | datasets/datasets.h | datasets/io.c | datasets/dataset.c | \
        datasets/csr.c | datasets/*_write.c) echo ds_core ;;
    datasets/loaders.h | datasets/idx*.c | datasets/libsvm.c | datasets/libsvm_slice.c | \
        datasets/png.c | datasets/jpeg.c | datasets/image.c | datasets/pngdir.c | datasets/pngdir_*.c | datasets/stream.c | datasets/slice_comm.c | \
        datasets/slice_agree.c|datasets/weights_load.c) echo ds_loaders ;;
    datasets/load.c | datasets/slice.c) echo ds_load ;;
    fsvc/*) echo fsvc ;;
    tools/*) echo tools ;;
    *) echo "" ;;
    esac
}

may_use() { # src-layer dst-layer dst-path -> 0 if allowed
    local s=$1 d=$2 p=$3
    [ "$s" = "$d" ] && return 0
    [ "$d" = base ] && return 0
    case "$s:$d" in
    backif:types | backend:backif | backend:types | engine:backif | engine:types | ds_loaders:ds_core | ds_load:ds_loaders | ds_load:ds_core | \
        fsvc:types | fsvc:ds_core | tools:types | tools:ds_core | tools:fsvc)
        ;;
    fsvc:engine | tools:engine)
        [ "$p" = layers/bnl.h ] || [ "$p" = layers/sparse.h ] || return 1 ;;
    *) return 1 ;;
    esac
    [ "$s" = tools ] && [ "$p" = fsvc/internal.h ] && return 1
    return 0
}

check_tree() { # ROOT -> 0 clean, 1 with the offending edges printed
    local root=$1 bad=0 f inc dir target ls ld edges
    edges=$(mktemp)
    while IFS= read -r f; do
        f=${f#"$root"/}
        ls=$(layer_of "$f")
        if [ -z "$ls" ]; then
            echo "check_includes: $f is in no layer (add it to tools/check_includes.sh)"
            bad=1
        fi
        dir=$(dirname "$f")
        while IFS= read -r inc; do
            target=""
            if [ -f "$root/$dir/$inc" ]; then
                target=$(realpath -m --relative-to="$root" "$root/$dir/$inc")
            elif [ -f "$root/$inc" ]; then
                target=$(realpath -m --relative-to="$root" "$root/$inc")
            fi
            if [ -z "$target" ]; then
                echo "check_includes: $f -> \"$inc\": no such file in the tree"
                bad=1
                continue
            fi
            ld=$(layer_of "$target")
            echo "$f $target" >>"$edges"
            if [ -n "$ls" ] && ! may_use "$ls" "$ld" "$target"; then
                echo "check_includes: $f ($ls) -> $target (${ld:-no layer}): not allowed"
                bad=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$root/$f")
    done < <(find "$root/base" "$root/datasets" "$root/layers" "$root/cuda" "$root/fsvc" \
                  "$root/tools" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
                  2>/dev/null | sort)
    # circles: depth-first search over the file graph
    if ! awk '
        { adj[$1] = adj[$1] " " $2; nodes[$1] = 1; nodes[$2] = 1 }
        function dfs(u, path,    i, k, vs, v) {
            state[u] = 1
            k = split(adj[u], vs, " ")
            for (i = 1; i <= k; i++) {
                v = vs[i]
                if (v == u) continue
                if (state[v] == 1) { print "check_includes: circle: " path " -> " v; found = 1 }
                else if (state[v] == 0) dfs(v, path " -> " v)
            }
            state[u] = 2
        }
        END { for (n in nodes) if (state[n] == 0) dfs(n, n); exit found }' "$edges"; then
        bad=1
    fi
    rm -f "$edges"
    return $bad
}

self_test() {
    local tmp fail=0 out
    tmp=$(mktemp -d) || exit 3
    trap 'rm -rf "$tmp"' RETURN
    plant() { # name file line expected-text
        rm -rf "$tmp/t" && mkdir -p "$tmp/t"
        cp -r base datasets layers cuda fsvc tools "$tmp/t/"
        [ -n "$2" ] && echo "$3" >>"$tmp/t/$2"
        out=$(check_tree "$tmp/t" 2>&1)
        local rc=$?
        if [ -z "$2" ]; then
            [ $rc = 0 ] && echo "self-test: clean copy passes" ||
                { echo "self-test FAILED: the clean copy fails:"; echo "$out"; fail=1; }
        elif [ $rc != 0 ] && grep -q -- "$4" <<<"$out"; then
            echo "self-test: $1 caught: $(grep -m1 -- "$4" <<<"$out")"
        else
            echo "self-test FAILED: $1 not caught (rc $rc): $out"
            fail=1
        fi
    }
    plant "clean" "" "" ""
    plant "upward edge" layers/kern_scalar.c '#include "../fsvc/fsvc.h"' \
        'layers/kern_scalar.c (backend) -> fsvc/fsvc.h (fsvc): not allowed'
    plant "engine -> backend internals" layers/bnl.c '#include "../cuda/bnl_cuda.h"' \
        'layers/bnl.c (engine) -> cuda/bnl_cuda.h (backend): not allowed'
    plant "tools -> private header" tools/cmd_info.c '#include "layers/kernels.h"' \
        'tools/cmd_info.c (tools) -> layers/kernels.h (backif): not allowed'
    plant "loader -> dispatcher" datasets/idx.c '#include "datasets/load.c"' \
        'datasets/idx.c (ds_loaders) -> datasets/load.c (ds_load): not allowed'
    plant "circle" layers/backend.h '#include "cpu_tile.h"' 'circle: .*cpu_tile.h'
    plant "unresolved include" fsvc/rng.c '#include "nosuch.h"' 'no such file'
    return $fail
}

if [ "${1:-}" = --self-test ]; then
    self_test
    exit $?
fi
root=${1:-.}
if check_tree "$root"; then
    echo "check_includes: the include graph is one-way, no circles"
else
    exit 1
fi
