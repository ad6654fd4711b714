#!/usr/bin/env bash
# check_cuda_static.sh [DIR] - static rules for the CUDA backend (issue 25),
# which no CPU test can exercise and a GPU run catches only by luck.
# DIR holds the .cu files (default: cuda/ of this repo). Exit 1 on any hit.
#
#   sync    no synchronous cudaMemset, nor cudaMemcpy host-to-device or
#           device-to-device: they run on the legacy stream, which the
#           backend's non-blocking streams do not wait for (and a pageable
#           H2D may return before its DMA lands). Name the stream that
#           consumes the data (cudaMemsetAsync / cudaMemcpyAsync, then
#           synchronize where the host buffer is reused). D2H copies are
#           left alone: they block until done, and each follows a sync.
#   device  every extern "C" entry point that calls the CUDA runtime,
#           cuBLAS or cuSOLVER calls cudaSetDevice first: handles,
#           allocations and launches belong to the current device, which
#           FSVC_CUDA_DEVICE or another context may have changed.
#   launch  no kernel launch under a switch's default: label (an op the
#           switch does not name, e.g. BNLC_F64_L1 in bnlc_launch_tile,
#           must fail, not run another op's kernel).
#   size64  the readout files (ridge, lms, dstream: m^2 and m * Nt sized
#           products) use cuBLAS's _64 calls and cuSOLVER's 64-bit X API.
#   ptxas   results/cuda-ptxas.txt has a line for every __global__ kernel
#           of DIR on sm_80 and sm_90 (regenerate it: make -C tests/cuda
#           ptxas); checked when DIR is this repo's cuda/ or PTXAS names
#           the report.
#
#   check_cuda_static.sh --self-test   plants one fault per rule and checks
#                                      that each is caught
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

# prints "file:line: rule: text" for each hit in the .cu files given
scan() {
    awk '
    function hit(rule, msg) { printf "%s:%d: %s: %s\n", FILENAME, FNR, rule, msg; bad = 1 }
    FNR == 1 { stmt = ""; infn = 0; depth = 0; fname = "" }
    {
        line = $0
        sub(/\/\/.*/, "", line)
        # sync: gather a cudaMemset / cudaMemcpy statement up to its ";"
        if (stmt == "" && line ~ /(^|[^A-Za-z0-9_])cudaMem(set|cpy)\(/) { stmt = line; sline = FNR }
        else if (stmt != "") stmt = stmt " " line
        if (stmt != "" && stmt ~ /;/) {
            if (stmt ~ /(^|[^A-Za-z0-9_])cudaMemset\(/)
                printf "%s:%d: sync: synchronous cudaMemset (use cudaMemsetAsync on the consuming stream)\n", FILENAME, sline
            else if (stmt ~ /cudaMemcpy\(/ && stmt ~ /cudaMemcpy(HostToDevice|DeviceToDevice|Default)/)
                printf "%s:%d: sync: synchronous cudaMemcpy H2D/D2D (use cudaMemcpyAsync on the consuming stream)\n", FILENAME, sline
            stmt = ""
        }
        # device: extern "C" bodies, from the opening "{" at column 0 to "}"
        if (line ~ /^extern "C"/) { want = 1; fname = line; sub(/\(.*/, "", fname); sub(/.* \**/, "", fname); fline = FNR }
        if (want && line ~ /^\{/) { want = 0; infn = 1; first = ""; next }
        if (infn) {
            if (line ~ /^\}/) {
                if (first != "" && first != "cudaSetDevice")
                    printf "%s:%d: device: %s calls %s before cudaSetDevice\n", FILENAME, fline, fname, first
                infn = 0
                next
            }
            if (first == "") {
                s = line
                while (match(s, /(cuda|cublas|cusolver)[A-Z][A-Za-z0-9_]*\(/)) {
                    f = substr(s, RSTART, RLENGTH - 1)
                    s = substr(s, RSTART + RLENGTH)
                    if (f ~ /^cuda(GetLastError|GetErrorString|Error_t)$/) continue
                    first = f
                    break
                }
            }
        }
        # launch: from a default: label to the next case / closing brace
        if (line ~ /^[ \t]*default[ \t]*:/) indef = 1
        else if (line ~ /^[ \t]*(case[ \t].*:|\})/) indef = 0
        if (indef && line ~ /<<</)
            printf "%s:%d: launch: a kernel launched under default: (name each op; fail the rest)\n", FILENAME, FNR
        # size64: the readout files
        if (FILENAME ~ /(ridge|lms|dstream)\.cu$/) {
            s = line
            while (match(s, /(cublas[SDCZ][a-z]+[A-Za-z0-9_]*|cusolverDn[SDCZ][a-z]+[A-Za-z0-9_]*)\(/)) {
                f = substr(s, RSTART, RLENGTH - 1)
                s = substr(s, RSTART + RLENGTH)
                if (f ~ /^cublas/ && f !~ /_64$/ && f !~ /^cublas(Set|Get)/)
                    printf "%s:%d: size64: %s takes int sizes (use %s_64)\n", FILENAME, FNR, f, f
                if (f ~ /^cusolverDn[SDCZ]/ && f !~ /^cusolverDn(SetStream|Destroy|Create)/)
                    printf "%s:%d: size64: %s takes int sizes (use the cusolverDnX 64-bit API)\n", FILENAME, FNR, f
            }
        }
    }' "$@"
}

# the __global__ kernels of the .cu files given, one name a line
kernels() {
    awk '
    /__global__/ { buf = $0; want = 1 }
    want && !/__global__/ { buf = buf " " $0 }
    want && buf ~ /\(/ {
        gsub(/\/\*[^*]*\*\//, "", buf)
        gsub(/__launch_bounds__[ \t]*\([^)]*\)/, "", buf)
        if (match(buf, /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/)) {
            name = substr(buf, RSTART, RLENGTH)
            sub(/[ \t]*\($/, "", name)
            print name
            want = 0
        }
    }' "$@" | sort -u
}

# prints "report: ptxas: kernel arch missing" for each kernel without its line
ptxas_check() {
    local report=$1; shift
    local k a
    [ -r "$report" ] || { echo "$report: ptxas: no such report"; return; }
    for k in $(kernels "$@"); do
        for a in sm_80 sm_90; do
            grep -Eq "^$k(<[^ ]*>)? +$a " "$report" || echo "$report: ptxas: $k $a missing"
        done
    done
}

self_test() {
    local t
    t=$(mktemp -d) || exit 1
    trap 'rm -rf "$t"' RETURN
    cat > "$t/ok.cu" <<'EOF'
extern "C" int good(bnl_cuda *c)
{
    if (!c)
        return fsvc_fail(err, FSVC_EUSAGE, "%s", cudaGetErrorString(e));
    CUDA_CHECK(err, cudaSetDevice(c->dev));
    CUDA_CHECK(err, cudaMemcpyAsync(d, h, 8, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(err, cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));
    switch (op) {
    case 1:
        k1<<<g, b>>>();
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return 0;
}
EOF
    cat > "$t/ridge.cu" <<'EOF'
static int f(void)
{
    CUDA_CHECK(err, cudaMemset(p, 0,
                               8));
    e = cudaMemcpy(d, h, 8,
                   cudaMemcpyHostToDevice);
    cublasSetStream(h, s);
    cublasDgemm_64(h, a);
    cublasDsyrk(h, a);
    cusolverDnDpotrf(h, a);
    switch (op) {
    case 1:
        k1<<<g, b>>>();
        break;
    default:
        k2<<<g, b>>>();
    }
}
extern "C" int bad(bnl_cuda *c)
{
    cudaMalloc(&p, 8);
    cudaSetDevice(c->dev);
}
EOF
    local out
    out=$(scan "$t/ok.cu")
    [ -z "$out" ] || { echo "self-test: clean file flagged:"; echo "$out"; return 1; }
    out=$(scan "$t/ridge.cu")
    local want
    for want in ":3: sync: synchronous cudaMemset" ":5: sync: synchronous cudaMemcpy" \
                ":9: size64: cublasDsyrk" ":10: size64: cusolverDnDpotrf" \
                ":16: launch: a kernel launched" ":19: device: bad calls cudaMalloc"; do
        grep -qF "$want" <<<"$out" || { echo "self-test: missed '$want' in:"; echo "$out"; return 1; }
    done
    [ "$(wc -l <<<"$out")" = 6 ] || { echo "self-test: extra hits:"; echo "$out"; return 1; }
    printf '%s\n' 'static __global__ void widen_kernel(double *Hd)' '{' '}' \
        'template <int OP>' '__global__ void __launch_bounds__(BNLC_THREADS, 1) /* why */' \
        'bnl_tile_kernel(float *out)' '{' '}' > "$t/k.cu"
    printf '%s\n' 'widen_kernel sm_80 1' 'widen_kernel sm_90 1' 'bnl_tile_kernel<U8_L1> sm_80 1' > "$t/p.txt"
    out=$(ptxas_check "$t/p.txt" "$t/k.cu")
    [ "$out" = "$t/p.txt: ptxas: bnl_tile_kernel sm_90 missing" ] ||
        { echo "self-test: ptxas rule gave:"; echo "$out"; return 1; }
    echo "check_cuda_static: self-test ok"
}

if [ "${1:-}" = --self-test ]; then
    self_test
    exit $?
fi
dir=${1:-$here/cuda}
out=$(scan "$dir"/*.cu)
report=${PTXAS:-}
[ -z "$report" ] && [ "$(cd "$dir" && pwd)" = "$here/cuda" ] && report=$here/results/cuda-ptxas.txt
if [ -n "$report" ]; then
    p=$(ptxas_check "$report" "$dir"/*.cu)
    out=$(printf '%s\n%s' "$out" "$p" | sed '/^$/d')
fi
if [ -n "$out" ]; then
    echo "$out"
    echo "check_cuda_static: $(wc -l <<<"$out") hit(s) in $dir"
    exit 1
fi
echo "check_cuda_static: ok ($(ls "$dir"/*.cu | wc -l) files)"
