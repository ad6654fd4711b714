#!/usr/bin/env bash
# mutation_check.sh - does the test suite catch planted bugs?
#
# Copies the working tree (tracked and untracked, not ignored files) into a
# temporary folder, builds it there (NO_CUDA=1), checks that the tests named
# below pass on the unmodified copy, then for each mutant: replaces one
# exact piece of one line (it must occur exactly once in its file), rebuilds
# the tests it names, runs them, records which fail, and puts the line back.
# A mutant is CAUGHT when at least one of its tests fails (an assertion, a
# crash, a FAIL line of a CLI script). The working files are never edited.
# Not part of `make test` (a few minutes); tests/MUTATION.md has the list
# and the last results.
#
# Usage: tools/mutation_check.sh [--keep] [ID...]   (IDs: M01 M02 ...)
# Exit: 0 every mutant run was caught; 1 a mutant survived, no longer
# applies (its text is gone) or does not build; 2 the unmodified copy fails.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KEEP=0
if [ "${1:-}" = --keep ]; then KEEP=1; shift; fi
WANT=" $* "
export FSVC_DATA=${FSVC_DATA:-$ROOT/build/data}
unset FSVC_TEST_QUICK FSVC_ARCH
export OOM_STRIDE=${OOM_STRIDE:-1} # the allocation sweeps whole (make test samples them)

# ID @ file @ exact text @ replacement @ tests (unit binaries, cli:SCRIPT) @ what
MUTANTS=(
"M01@layers/kern_u8_avx2.c@_mm256_sad_epu8((x), (w))@_mm256_sad_epu8((x), (x))@test_novelty test_bnl_ops test_kernels@AVX2 u8 L1 kernel: SAD of x with itself"
"M02@layers/kern_u8_avx512.c@_mm512_sad_epu8((x), (w))@_mm512_sad_epu8((x), (x))@test_novelty test_bnl_ops test_kernels@AVX-512 u8 L1 kernel: SAD of x with itself"
"M03@layers/kern_flt_avx2.c@#define RS_ADD(k, col) (b = _mm256_add_ps(b, (col)))@#define RS_ADD(k, col) (b = _mm256_sub_ps(b, (col)))@test_novelty test_bnl_ops test_kernels@AVX2 f32 L1 kernel: row sums subtract"
"M04@layers/kern_flt_avx512.c@c##r##0 = _mm512_add_pd(c##r##0, _mm512_abs_pd(_mm512_sub_pd(xb, w0)));@c##r##0 = _mm512_add_pd(c##r##0, _mm512_sub_pd(xb, w0));@test_novelty test_bnl_ops test_kernels@AVX-512 f64 L1 kernel: abs dropped in one lane group"
"M05@layers/kern_scalar.c@acc[r][c] += ABS(xv - w[c]);@acc[r][c] += (xv - w[c]);@test_novelty test_bnl_ops test_kernels@scalar float L1 kernel: abs dropped"
"M06@layers/epi_body.h@h[j] = t > 0.0f ? t : 0.0f;@h[j] = t;@test_bnl_ops@float epilogue: triangle not clamped at 0"
"M07@layers/act.h@p.a = (float)(1.0 / (BNL_TRI_SCALE * r));@p.a = (float)(1.0 / (BNL_TRI_SCALE * r * 0.99));@test_bnl_ops@activation constant shared by ref and kernels: triangle 1% narrow"
"M08@layers/plan.c@return op->dtype != FSVC_U8 && op->dist != BNL_L1;@return op->dtype != FSVC_U8 && op->dist == BNL_DOT;@test_bnl_ops@planner: float L2 sent to the L1 kernels"
"M09@layers/cpu_reduce.c@s += f64 ? hd[j] : (double)hf[j];@s = f64 ? hd[j] : (double)hf[j];@test_bnl_ops test_novelty@actsum epilogue: sum replaced by the last term"
"M10@fsvc/novelty.c@if (!(v->cnt == 0 || v->S[v->cand[j]] < prag))@if (!(v->cnt == 0 || v->S[v->cand[j]] <= prag))@test_novelty@batched novelty pass: < becomes <= (tie accepted)"
"M11@fsvc/novelty.c@if (cnt > 0 && !(a < prag))@if (cnt > 0 && !(a <= prag))@test_novelty@sequential novelty pass: < becomes <="
"M12@fsvc/ridge.c@double lam = md > 0 ? lambda * md : lambda;@double lam = lambda;@test_readout@ridge: lambda not scaled by mean diag(H^T H)"
"M13@fsvc/model_io.c@M->y_offset = get_f64(b);@M->y_offset = 0 * get_f64(b);@test_model test_model_regression@model load: regression y_offset dropped"
"M14@fsvc/model_io.c@if (crc != (uint32_t)crc32_z(0L, h + MODEL_HEAD, (z_size_t)plen))@if (0 && crc != (uint32_t)crc32_z(0L, h + MODEL_HEAD, (z_size_t)plen))@test_model test_model_bad cli:test_train.sh@model load: CRC not checked"
"M15@fsvc/deskew.c@*alpha = cxy / vy;@*alpha = -cxy / vy;@test_deskew@deskew: shear sign flipped"
"M16@datasets/idx.c@if (dim == 0)@if (0 && dim == 0)@test_idx test_idx_dims@IDX loader: zero-dimension check removed"
"M17@datasets/libsvm.c@if (k == prev) {@if (0 && k == prev) {@test_libsvm@LIBSVM loader: duplicate index accepted"
"M18@datasets/png.c@png_set_expand(png);@(void)png;@test_png@PNG loader: palette and low-bit images not expanded"
"M19@layers/kern_u8_avx512vnni.c@c##r##2 = _mm512_dpbusd_epi32(c##r##2, b, w2)@c##r##2 = _mm512_dpbusd_epi32(c##r##2, b, w1)@test_kernels test_bnl_ops@avx512vnni u8 GEMM: neurons 32-47 against the panel of 16-31"
"M20@layers/kern_flt_avx512bf16.c@c##r##2 = _mm512_dpbf16_ps(c##r##2, b, w2)@c##r##2 = _mm512_dpbf16_ps(c##r##2, b, w1)@test_bf16@avx512bf16 GEMM: neurons 32-47 against the panel of 16-31"
"M21@layers/peak_avx512.c@#define UNITS 96 /* R16 six times */@#define UNITS 48 /* R16 six times */@test_peak@512-bit peak probe: counts half its units (peak too low)"
"M22@layers/peak_avx2.c@#define UNITS 88 /* R11 eight times */@#define UNITS 176 /* R11 eight times */@test_peak@256-bit peak probe: counts twice its units (peak too high)"
"M23@tools/bench_run.c@r->probe_frac = syn / r->cpu_min@r->probe_frac = 2 * syn / r->cpu_min@cli:test_bench_peak.sh@bench: the per-CPU-second share of the peak doubled"
"M24@fsvc/hog.c@h[(lo + 1) % FSVC_HOG_BINS] += mag * f;@h[lo + 1 < FSVC_HOG_BINS ? lo + 1 : lo] += mag * f;@test_hog@HOG: the last bin's share no longer wraps to bin 0"
"M25@fsvc/hog.c@for (int64_t q = 0; q < w; q++) out[q] = sqrtf(out[q]);@for (int64_t q = 0; q < w; q++) out[q] = out[q];@test_hog test_model_hog@HOG: the square root of the histograms dropped"
"M26@fsvc/model_hog.c@row[n + k] = v >= 254.5 ? 255 : (unsigned char)(v + 0.5);@row[n + k] = v >= 254.5 ? 255 : (unsigned char)v;@test_model_hog@HOG join: u8 features truncated, not rounded"
"M27@fsvc/model_input.c@lut[v] = (uint8_t)floor(sqrt(255.0 * v) + 0.5);@lut[v] = (uint8_t)floor(sqrt(255.0 * v));@test_model@sqrt-u8 preprocessing: truncated, not rounded"
"M28@layers/round_hd.h@uint32_t r = a + 0xfffu + ((a >> 13) & 1u);@uint32_t r = a;@test_hgram test_bf16_cache@f16 rounding of pcg's H: truncation instead of round to nearest even"
"M29@layers/kern_gram_body.h@acc[r][k] = GV_FMA(h[r], vv, acc[r][k]);@acc[r][k] = GV_FMA(h[0], vv, acc[r][k]);@test_hgram@fused pcg product H V: every row of a group reads the first row"
"M30@fsvc/pcg.c@double s = sqrt((lam + src->h_err2 / (double)m)@double s = sqrt((lam + 0 * src->h_err2 / (double)m)@test_bf16_cache@pcg preconditioner: the floor of a 16-bit H ignored"
"M31@fsvc/solver.c@bounded && lambda >= FSVC_PCG_F16_MIN_LAMBDA ? BNL_H_F16@bounded && lambda > 0 ? BNL_H_F16@test_pcg_h_auto@--pcg-h auto: f16 for any lambda, not from 1e-6 up"
"M32@layers/kernels.c@return cpuid_bit(&known, 1, 0, 2, 29);@return cpuid_bit(&known, 1, 0, 3, 29);@test_kernels@F16C asked in EDX instead of ECX"
"M33@layers/cpu_dnnl.c@w->packed + (size_t)(j0 / 64) * w->block_bytes@w->packed + (size_t)(j0 / 128) * w->block_bytes@test_dnnl@onednn tier: a tile past the first 64 neurons reads the wrong packed block"
"M34@tools/study_point.c@fsvc_csv_field(r, fsvc_name_of(fsvc_features_names, (int)m->features));@fsvc_csv_field(r, fsvc_name_of(fsvc_features_names, (int)p->features));@cli:test_hog.sh@study CSV: the features setting (auto) instead of what the model read"
"M35@fsvc/csv.c@!strpbrk(s, \",\\\"\\r\\n\") && s[0] != '#' @!strpbrk(s, \",\\\"\\r\\n\") @test_csv@CSV writer: a field starting with # not quoted (read back as a comment)"
"M36@fsvc/csv.c@put(o, \"\\\"\", 1);                     /* \" -> \"\" */@/* quotes not doubled */@test_csv@CSV writer: a quote inside a field not doubled"
"M37@fsvc/folds.c@fold[idx[t]] = (int)(deal % nfold);@fold[idx[t]] = (int)(t % nfold);@test_cv@stratified folds: each class dealt from fold 0 (the first folds grow)"
"M38@fsvc/calibrate.c@double pk = exp(a * (s[k] - top)) / z;@double pk = exp(a * (s[k] - top)) / (z + 1);@test_calibrate@probabilities: the softmax no longer sums to 1"
"M39@datasets/load.c@st.st_dev == o->st_dev && st.st_ino == o->st_ino;@st.st_dev == o->st_dev && st.st_ino == o->st_ino && 0;@cli:test_no_overwrite.sh@a file an input reads (an IDX pair's labels) accepted as an output"
"M40@fsvc/pcg.c@else if (!stop && c->it - c->best_it >= 30) stop = 1;@else if (!stop && c->it - c->best_it >= 3) stop = 1;@test_pcg test_bf16_cache@pcg: stagnation declared after 3 iterations without 10 % progress, not 30"
"M41@fsvc/pcg.c@#define PCG_RESTARTS 2 /*@#define PCG_RESTARTS 0 /*@test_pcg test_pcg_weights@pcg: no restart from the true residual"
"M42@fsvc/model_io.c@M->hog_scale = ver >= 7 ? get_f64(b) : 0;@M->hog_scale = ver >= 7 ? (float)get_f64(b) : 0;@test_model_hog@model load: the HOG scale read back rounded to float"
"M43@datasets/idx_pair.c@*bad = got < 0 && !nomem;@*bad = got < 0;@cli:test_oom.sh@out of memory peeking into a gzip file taken for a bad IDX file (exit 2)"
"M44@datasets/png.c@if (strstr(msg, \"memory\") || strstr(msg, \"Memory\"))@if (0)@cli:test_oom.sh@libpng's out of memory reported as a bad PNG (exit 2)"
"M45@tools/cmd_train.c@if (!rc && p.rows > 0 && shape_n > CLI_MAX_FEATURES)@if (0 && !rc && p.rows > 0 && shape_n > CLI_MAX_FEATURES)@cli:test_train_refusals.sh@train --shape over the dense limit no longer refused up front"
"M46@fsvc/train.c@int rc = !idx || !x0 || !skew ?@if (!skew) { free(idx); free(x0); M->preprocess = FSVC_PRE_SQRT_U8; return FSVC_OK; } int rc = !idx || !x0 ?@cli:test_oom.sh@preprocess auto out of memory: sqrt-u8 without the deskew test, exit 0"
"M47@fsvc/calibrate.c@if (!cnt) return -1;@if (!cnt) return 0;@cli:test_oom.sh@the temperature's fit out of memory taken for uninformative scores (uniform probabilities, exit 0)"
"M48@fsvc/calibrate.c@if (info == BNL_CHOL_NOMEM)@if (0)@cli:test_oom.sh@a fold's Cholesky out of memory blamed on lambda (exit 2)"
"M49@tools/plot.c@if (!e) e = posix_spawn_file_actions_adddup2(&fa, in, 0);@if (!e) posix_spawn_file_actions_adddup2(&fa, in, 0);@cli:test_oom.sh@a lost spawn action leaves gnuplot reading fsvc's stdin"
"M50@tools/plot.c@if ((ferror(g) | fclose(g)) || !prog) {@if (ferror(g) | fclose(g)) {@cli:test_oom.sh@the gnuplot program lost by fclose reported as gnuplot's fault"
"M51@tools/study_run.c@if (bad || !*text) {@if (bad) {@cli:test_oom.sh@a study point's text lost by fclose reported as a broken outcome"
"M52@datasets/io.c@if (rc == Z_MEM_ERROR)@if (0)@cli:test_oom.sh@inflate out of memory reported as corrupt gzip data"
"M53@fsvc/embed.c@\"model bytes: cannot read back %s: %s\", path, why@\"model bytes: cannot read back %s\", path@cli:test_oom.sh@the model's bytes out of memory reported as a file that cannot be read back, no reason given"
"M54@fsvc/train.c@rc = fsvc_comm_agreed(at->comm, rc, err); /* every rank takes the exchange, or none */@/* no agreement */@cli:test_mpi_oom.sh@preprocess auto: one rank out of memory skips the rows' exchange (a hang)"
"M55@fsvc/train.c@rc = fsvc_comm_agreed(comm, rc, err); /* class values, names: one rank can fail alone */@/* no agreement */@cli:test_mpi_oom.sh@a rank out of memory for the class values leaves the others in a collective (a hang)"
"M56@datasets/slice_agree.c@if (ds_slice_max(c, nomem, &nomem) || nomem) {@if (0) {@cli:test_mpi_oom.sh@a rank out of memory for the data's prints skips their exchange"
"M57@layers/act_simd_body.h@ACT_M under = ACT_LT(x, ACT_SET1(-87.0f));@ACT_M under = ACT_LT(x, ACT_SET1(-86.0f));@test_bnl_act@vector Gaussian: exp cut to 0 from -86, not below -87"
"M58@layers/act_sse2.h@return _mm_or_ps(_mm_and_ps(m, b), _mm_andnot_ps(m, a));@return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));@test_bnl_act@SSE2 select: the two sides swapped"
"M59@layers/act_simd_body.h@ACT_V ax = ACT_SEL(neg, x, ACT_XOR(x, sign));@ACT_V ax = ACT_SEL(neg, x, x);@test_bnl_act@vector tanh: |x| left negative"
"M60@layers/act_simd_body.h@h[j] = bnl_expf(-((v > 0.0f ? v : 0.0f) * g));@h[j] = bnl_expf(-(v * g));@test_bnl_act@L2 GEMM Gaussian: a row's scalar tail not clamped at 0"
"M61@layers/kern_u8gemm_body.h@hi = k + 1 < n ? x[k + 1] : 0;@hi = k + 1 <= n ? x[k + 1] : 0;@test_kernels test_bnl_ops@avx2 int16 GEMM: an odd n's last pair reads past the row"
"M62@layers/kern_u8gemm_body.h@rows, cols, b == 0, last,@rows, cols, 1, last,@test_kernels test_bnl_ops@avx2 int16 GEMM: each k block overwrites D instead of adding"
"M63@layers/kern_u8gemm_body.h@const int full = cols == KG_NR;@const int full = cols > 8;@test_kernels@avx2 int16 GEMM: a partial panel stored whole (past m)"
"M64@layers/kern_u8gemm_sse2.c@for (int l = 0; l < left; l++) p[l] = t[l];@for (int l = 0; l < left - 1; l++) p[l] = t[l];@test_kernels@SSE2 int16 GEMM: a partial vector's last lane not stored"
"M65@layers/kern_u8gemm_sse2.c@_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p)), _mm_setzero_si128())@_mm_unpacklo_epi8(_mm_setzero_si128(), _mm_loadl_epi64((const __m128i *)(p)))@test_kernels@SSE2 int16 GEMM: bytes widened into the high halves"
"M66@layers/kern_u8_avxvnni.c@const int full = cols == AV_NR;@const int full = cols > 8;@test_kernels@avxvnni GEMM: a partial panel stored whole (past m)"
"M67@layers/kern_u8_avxvnni.c@full ? _mm256_loadu_si256((const __m256i *)dv)@full ? _mm256_setzero_si256()@test_kernels@avxvnni GEMM: a full tile's later k blocks overwrite D"
"M68@layers/kern_u8_avxvnni.c@c##r##2 = _mm256_dpbusd_avx_epi32(c##r##2, b, w2)@c##r##2 = _mm256_dpbusd_avx_epi32(c##r##2, b, w1)@test_kernels@avxvnni GEMM: the third 8 neurons take the second's weights"
"M69@layers/cpu_hprod.c@at[j] *= s->nv;@at[j] = at[j] * s->nv + (s->nv > 1);@test_pcg@K_mm from H's rows: an augmented centroid takes its shifted variant's row"
"M70@layers/cpu_hprod.c@    s->ssk = ss;@    s->ssk = 0;@test_pcg@K_mm first: the trace of H made with it is lost"
"M71@layers/cpu_hprod.c@if (s->cache && !s->cached && f32 == !s->hd) {@if (0) {@test_pcg@K_mm first: never from the first pass (an engine pass again)"
"M72@layers/kern_tri_body.h@if (i < len) back_step(acc, col, X, ldx, NK, i, 1, (int)(len - i));@if (i + 1 < len) back_step(acc, col, X, ldx, NK, i, 1, (int)(len - i));@test_tri@triangular solves, backward kernel: a one-row tail dropped"
"M73@layers/kern_tri_body.h@for (int c = 0; c < nc; c++)@for (int c = 0; c < TC; c++)@test_tri@triangular solves, backward kernel: the repeated columns of a partial tile stored"
"M74@layers/kern_tri_body.h@#define FWD_FULL(NK) fwd_strip(B + r + k0 * ldb, ldb, Lj + r, lda, Xj + k0 * ldx,@#define FWD_FULL(NK) fwd_strip(B + r + k0 * ldb, ldb, Lj + r, lda, Xj + k0,@test_tri@triangular solves, forward kernel: a later group of right-hand sides reads X's first column"
"M75@layers/chol.c@: SOLVE_COLS;@: SOLVE_COLS - 1;@test_weights test_sgemm@triangular solves: each backward chunk one column short"
"M76@layers/chol.c@below, K);@below - (below > 3), K);@test_weights test_sgemm@triangular solves: the backward dot stops a row short"
"M77@fsvc/pcg.c@ - (ts->t_h - th) - (ts->t_prod - tq);@ - (ts->t_h - th);@test_pcg@pcg: the first pass's product seconds counted in the preconditioner's too"
)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fsvc-mutation-XXXXXX")
if [ "$KEEP" = 1 ]; then echo "work folder: $WORK (kept)"; else trap 'rm -rf "$WORK"' EXIT; fi
( cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - -cf - ) | tar -C "$WORK" -xf - || { echo "mutation: cannot copy the tree"; exit 2; }

SO_VERSION=$(sed -n 's/^#define FSVC_VERSION "\(.*\)"/\1/p' "$ROOT/fsvc/fsvc.h")
build() { ( cd "$WORK" && make -s -j2 NO_CUDA=1 "$@" >"$WORK/build.log" 2>&1 ); }
targets() { # tests -> make targets
  local t out="build/fsvc build/libfsvc.so.$SO_VERSION" # test_oom.sh links oom_embed to it
  for t in $1; do case $t in cli:*) ;; *) out="$out build/tests/$t" ;; esac; done
  echo "$out"
}
# run_test T: 0 passes, 1 fails
run_test() {
  local t=$1 log=$WORK/run.log
  case $t in
    cli:*) ( cd "$WORK" && FSVC="$WORK/build/fsvc" timeout 600 bash "tests/cli/${t#cli:}" ) >"$log" 2>&1
           [ $? -eq 0 ] && ! grep -q '^FAIL' "$log" ;;
    *)     ( cd "$WORK" && timeout 600 "build/tests/$t" ) >"$log" 2>&1 ;;
  esac
}
selected() { [ "$WANT" = "  " ] || [[ "$WANT" == *" $1 "* ]]; }

# the unmodified copy: every test named must pass
all_tests=""
for m in "${MUTANTS[@]}"; do
  IFS='@' read -r id _ _ _ tests _ <<<"$m"
  selected "$id" && all_tests="$all_tests $tests"
done
all_tests=$(echo $all_tests | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "mutation: building the copy (NO_CUDA=1) and running the unmodified tests"
build $(targets "$all_tests") || { echo "mutation: the copy does not build:"; tail -5 "$WORK/build.log"; exit 2; }
for t in $all_tests; do
  run_test "$t" || { echo "mutation: $t fails on the unmodified copy:"; tail -5 "$WORK/run.log"; exit 2; }
done

caught=0 total=0 bad=0
for m in "${MUTANTS[@]}"; do
  IFS='@' read -r id file from to tests what <<<"$m"
  selected "$id" || continue
  total=$((total + 1))
  f=$WORK/$file
  cp "$f" "$f.orig"
  n=$(python3 - "$f" "$from" "$to" <<'PY'
import sys
p, a, b = sys.argv[1:4]
s = open(p).read()
n = s.count(a)
if n == 1:
    open(p, "w").write(s.replace(a, b))
print(n)
PY
)
  if [ "$n" != 1 ]; then
    printf '%s %-26s STALE (the text occurs %s times): %s\n' "$id" "$file" "$n" "$what"
    bad=$((bad + 1)); rm -f "$f.orig"; continue
  fi
  if ! build $(targets "$tests"); then
    printf '%s %-26s DOES NOT BUILD: %s\n' "$id" "$file" "$what"
    bad=$((bad + 1))
  else
    by="" passed=""
    for t in $tests; do
      if run_test "$t"; then passed="$passed $t"; else by="$by $t"; fi
    done
    if [ -n "$by" ]; then
      caught=$((caught + 1))
      printf '%s %-26s caught by%s%s: %s\n' "$id" "$file" "$by" "${passed:+ (passed:$passed)}" "$what"
    else
      bad=$((bad + 1))
      printf '%s %-26s MISSED (passed:%s): %s\n' "$id" "$file" "$passed" "$what"
    fi
  fi
  mv "$f.orig" "$f"
  touch "$f"
done
echo "mutation: $caught of $total mutants caught"
[ "$bad" -eq 0 ]
