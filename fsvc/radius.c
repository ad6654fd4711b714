/* radius.c - the author's radius search (fsvc_radius_search), for the
 * dense selection (fsvc/train.c) and the sparse one (fsvc/sparse_train.c). */
#include "internal.h"

#include <math.h>

/* Author's recipe: prag as given, start large (r0), halve r until the
 * centroids are 1-10% of N, then refine towards the most centroids within
 * 10%. rp->pass(rp->self, r, cap, &m, &syn, err) runs one selection with radius r
 * stopping past cap centroids (dense: select_pass; sparse data:
 * fsvc/sparse_train.c). */
int fsvc_radius_search(double *r_out, double *syn, double r0, const fsvc_param *p,
                       const fsvc_radius_pass *rp, fsvc_error *err)
{
    int64_t N = rp->N;
    const char *source = rp->source;
    int64_t lo = (int64_t)ceil(0.01 * N), hi = (int64_t)floor(0.10 * N);
    if (lo < 1) lo = 1;
    if (hi < lo) hi = lo;
    double r = r0 > 0 ? r0 : 1;
    double best = 0, over = 0, under = 0, s = 0;
    int64_t m = 0;
#define PASS(rr) do { double sk_ = 0; \
        int rc_ = rp->pass(rp->self, (rr), hi + 1, &m, &sk_, err); \
        if (rc_) return rc_; \
        s += sk_; \
        if (p->progress) \
            fsvc_printf("radius search: r = %.6g -> %lld%s centroids (%.2f%% of N)\n", (rr), \
                    (long long)m, m > hi ? "+" : "", 100.0 * m / N); } while (0)
    /* halve: too few -> smaller r; in range -> remember, keep halving */
    for (int step = 0; step < 60 && !over; step++) {
        PASS(r);
        if (m < lo) under = r;
        else if (m <= hi) best = r;
        else over = r;
        r /= 2;
    }
    if (!over)
        return fsvc_fail(err, FSVC_EINPUT, "%s: radius search did not converge; give -r",
                         source);
    /* jumped over the range: bisect (geometrically) between under and over */
    for (int step = 0; step < 20 && best == 0 && under > 0; step++) {
        double mid = sqrt(under * over);
        PASS(mid);
        if (m < lo) under = mid;
        else if (m <= hi) best = mid;
        else over = mid;
    }
    if (best == 0)
        return fsvc_fail(err, FSVC_EINPUT, "%s: radius search found no radius giving 1-10%% "
                         "centroids; give -r", source);
    /* refine towards the most centroids within 10% */
    for (int step = 0; step < 3; step++) {
        double mid = sqrt(best * over);
        PASS(mid);
        if (m <= hi && m >= lo) best = mid;
        else over = mid;
    }
#undef PASS
    if (p->progress)
        fsvc_printf("radius search: r = %.6g\n", best);
    *r_out = best;
    if (syn) *syn = s;
    return FSVC_OK;
}
