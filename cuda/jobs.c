/*
 * jobs.c - the tile order of the CUDA driver (jobs.h). Pure host C.
 */
#include "jobs.h"

void bnlc_jobs_init(bnlc_jobs *it, const bnlc_plan *p, int actsum, int streams, int64_t m,
                    int64_t N)
{
    it->tile_m = p->tile_m;
    it->tile_N = p->tile_N;
    it->tiles_m = p->tiles_m;
    it->tiles_N = p->tiles_N;
    it->m = m;
    it->N = N;
    it->actsum = actsum;
    it->streams = streams < 1 ? 1 : streams > BNLC_JOBS_MAX_STREAMS ? BNLC_JOBS_MAX_STREAMS : streams;
    it->k = 0;
    it->total = p->tiles_m * p->tiles_N;
    for (int s = 0; s < BNLC_JOBS_MAX_STREAMS; s++)
        it->resW[s] = it->resX[s] = -1;
}

int bnlc_jobs_next(bnlc_jobs *it, bnlc_job *j)
{
    if (it->k >= it->total)
        return 0;
    int64_t k = it->k++;
    if (it->actsum) {
        j->ni = k / it->tiles_m;
        j->mi = k % it->tiles_m;
        j->stream = (int)(j->ni % it->streams);
    } else {
        j->mi = k / it->tiles_N;
        j->ni = k % it->tiles_N;
        j->stream = (int)(k % it->streams);
    }
    j->m0 = j->mi * it->tile_m;
    j->mt = it->m - j->m0 < it->tile_m ? it->m - j->m0 : it->tile_m;
    j->i0 = j->ni * it->tile_N;
    j->Nt = it->N - j->i0 < it->tile_N ? it->N - j->i0 : it->tile_N;
    j->load_w = it->resW[j->stream] != j->mi;
    j->load_x = it->resX[j->stream] != j->ni;
    it->resW[j->stream] = j->mi;
    it->resX[j->stream] = j->ni;
    j->first = !it->actsum || j->mi == 0;
    j->last = !it->actsum || j->mi == it->tiles_m - 1;
    return 1;
}
