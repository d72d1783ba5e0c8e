/* The grid of bricks, gathering to rank 0 and the end of a step (bricks.h). */
#include "mpi/bricks.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* px py pz = K with the smallest ghost volume (the brick grown by the halo h along its cut axes,
   less the brick) among those with bricks at least h wide, or parallel.grid. Under shear only
   1 x py x pz with py > 1 when K > 1 (parallel.grid: the DPD settings' check refuses others). */
static int choose_grid(const agglo_config *c, int K, int dim, const double len[3], double h,
                       int shear, int dims[3], char *err, size_t errlen) {
  const agglo_list *g = &c->parallel_grid;
  if (g->n) {
    long prod = 1;
    for (int k = 0; k < 3; k++) {
      double v = k < g->n ? g->v[k] : 1;
      if (v != floor(v) || (k >= dim && v != 1))
        return agglo_fail(err, errlen, "parallel.grid: %g along axis %d (allowed: whole numbers, "
                          "1 along z in 2D)", v, k);
      dims[k] = (int)v, prod *= dims[k];
    }
    if (prod != K)
      return agglo_fail(err, errlen, "parallel.grid = %d %d %d makes %ld bricks for %d ranks "
                        "(allowed: px py pz = the number of ranks)", dims[0], dims[1], dims[2], prod, K);
    return 0;
  }
  double best = INFINITY;
  dims[0] = shear ? 1 : K, dims[1] = shear ? K : 1, dims[2] = 1;
  for (int px = 1; px <= (shear ? 1 : K); px++)
    for (int py = 1; px * py <= K; py++) {
      if (K % (px * py) || (shear && K > 1 && py == 1)) continue;
      int pz = K / (px * py);
      if (dim == 2 && pz != 1) continue;
      int p[3] = {px, py, pz}, narrow = 0;
      double brick = 1, grown = 1;
      for (int k = 0; k < dim; k++) {
        brick *= len[k] / p[k], grown *= len[k] / p[k] + (p[k] > 1 ? 2 * h : 0);
        narrow |= p[k] > 1 && len[k] / p[k] < h;
      }
      double ghosts = grown - brick + (narrow ? INFINITY : 0); /* (narrow: only if nothing else) */
      if (ghosts < best * (1 - 1e-12)) best = ghosts, dims[0] = px, dims[1] = py, dims[2] = pz;
    }
  return 0;
}

int agglo_bricks_grow(void *buf, size_t *cap, size_t n, size_t size) {
  if (n <= *cap) return 0;
  size_t c = n + n / 2 + 1024;
  void *q = realloc(*(void **)buf, c * size);
  if (!q) return -1;
  *(void **)buf = q, *cap = c;
  return 0;
}

long agglo_bricks_exchange(const agglo_bricks *b, int k, double *const send[2],
                           const size_t cnt[2], int rec, double **recv, size_t *cap,
                           size_t got[2]) {
  size_t total = 0;
  for (int s = 0; s < 2; s++) {
    unsigned long out = cnt[s], in = 0;
    MPI_Sendrecv(&out, 1, MPI_UNSIGNED_LONG, b->nb[k][s], 7, &in, 1, MPI_UNSIGNED_LONG,
                 b->nb[k][1 - s], 7, b->comm, MPI_STATUS_IGNORE);
    got[s] = b->nb[k][1 - s] == MPI_PROC_NULL ? 0 : in;
    total += got[s];
  }
  if (agglo_bricks_grow(recv, cap, (size_t)rec * total, sizeof **recv) != 0) return -1;
  size_t off = 0;
  for (int s = 0; s < 2; s++) {
    MPI_Sendrecv(send[s], (int)((size_t)rec * cnt[s]), MPI_DOUBLE, b->nb[k][s], 8,
                 *recv + (size_t)rec * off, (int)((size_t)rec * got[s]), MPI_DOUBLE,
                 b->nb[k][1 - s], 8, b->comm, MPI_STATUS_IGNORE);
    off += got[s];
  }
  return (long)total;
}

int agglo_bricks_setup(agglo_bricks *b, const agglo_config *c, const double lo[3],
                       const double len[3], const int periodic[3], double halo, char *err,
                       size_t errlen) {
  MPI_Comm_size(MPI_COMM_WORLD, &b->size);
  MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
  b->comm = MPI_COMM_NULL;
  b->cut[0] = b->cut[1] = b->cut[2] = NULL;
  double box[10] = {0}; /* lo, len, periodic (3 each), halo */
  if (b->rank == 0) {
    for (int k = 0; k < 3; k++) box[k] = lo[k], box[3 + k] = len[k], box[6 + k] = periodic[k];
    box[9] = halo;
  }
  MPI_Bcast(box, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  b->dim = c->dim;
  halo = box[9];
  for (int k = 0; k < 3; k++) b->glo[k] = box[k], b->glen[k] = box[3 + k], b->gper[k] = box[6 + k] != 0;
  if (choose_grid(c, b->size, b->dim, b->glen, halo, b->shear, b->dims, err, errlen) != 0) return -1;
  int periods[3] = {b->gper[0], b->gper[1], b->gper[2]};
  MPI_Cart_create(MPI_COMM_WORLD, 3, b->dims, periods, 0, &b->comm);
  MPI_Cart_coords(b->comm, b->rank, 3, b->coord);
  for (int k = 0; k < 3; k++) {
    MPI_Cart_shift(b->comm, k, 1, &b->nb[k][0], &b->nb[k][1]);
    b->blo[k] = b->glo[k] + b->glen[k] * b->coord[k] / b->dims[k];
    b->bhi[k] = b->glo[k] + b->glen[k] * (b->coord[k] + 1) / b->dims[k];
    if (b->dims[k] > 1 && b->glen[k] / b->dims[k] < halo) {
      /* the box may hold fewer bricks than there are ranks (a tiny box: n = 1 was refused as
         "at most 0 bricks along x"): say so, and how many ranks it takes */
      double most = 1; /* (under shear x is not cut) */
      for (int j = b->shear; j < b->dim; j++) most *= fmax(1, floor(b->glen[j] / halo));
      if (most < b->size) {
        char sides[96];
        snprintf(sides, sizeof sides, b->dim == 3 ? "%g x %g x %g" : "%g x %g", b->glen[0],
                 b->glen[1], b->glen[2]);
        return agglo_fail(err, errlen, "the box (%s) holds at most %.0f brick%s at least the "
                          "cut-off %g wide%s, fewer than the %d MPI ranks: run it on at most %.0f "
                          "rank%s (mpirun -np %.0f%s), or enlarge the box", sides, most,
                          most == 1 ? "" : "s", halo,
                          b->shear ? " (under shear x is not cut: floor(L_y / r_c) floor(L_z / r_c))" : "",
                          b->size, most, most == 1 ? "" : "s", most, most == 1 ? ", or without mpirun" : "");
      }
      return agglo_fail(err, errlen, "parallel.grid: %d bricks along %c are %g wide, less than the "
                        "cut-off %g (allowed: at most %d bricks along %c)", b->dims[k], "xyz"[k],
                        b->glen[k] / b->dims[k], halo, (int)fmax(1, floor(b->glen[k] / halo)), "xyz"[k]);
    }
  }
  return 0;
}

void agglo_bricks_free(agglo_bricks *b) {
  if (b->comm != MPI_COMM_NULL) MPI_Comm_free(&b->comm);
}

int agglo_bricks_owner(const agglo_bricks *b, const double *x) {
  int c[3] = {0, 0, 0};
  for (int k = 0; k < b->dim; k++) {
    if (b->cut[k]) {
      while (c[k] < b->dims[k] - 1 && x[k] >= b->cut[k][c[k] + 1]) c[k]++;
      continue;
    }
    double q = floor((x[k] - b->glo[k]) / b->glen[k] * b->dims[k]);
    c[k] = !(q >= 0) ? 0 : q >= b->dims[k] ? b->dims[k] - 1 : (int)q;
  }
  int r;
  MPI_Cart_rank(b->comm, c, &r);
  return r;
}

int agglo_bricks_gather(const agglo_bricks *b, const void *mine, int cnt, MPI_Datatype t,
                        size_t size, void **all, size_t *total, int *counts) {
  int *cn = NULL, *displs = NULL, bad = !mine;
  *all = NULL, *total = 0;
  if (b->rank == 0) {
    cn = malloc((size_t)b->size * sizeof *cn);
    displs = calloc((size_t)b->size + 1, sizeof *displs);
    bad |= !cn || !displs;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!bad) {
    MPI_Gather(&cnt, 1, MPI_INT, cn, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (b->rank == 0) {
      for (int r = 0; r < b->size; r++) displs[r + 1] = displs[r] + cn[r];
      *total = (size_t)displs[b->size];
      bad = !(*all = malloc((*total + 1) * size));
      if (counts) memcpy(counts, cn, (size_t)b->size * sizeof *cn);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (!bad) MPI_Gatherv(mine, cnt, t, *all, cn, displs, t, 0, MPI_COMM_WORLD);
  free(cn), free(displs);
  if (bad) free(*all), *all = NULL;
  return bad ? -1 : 0;
}

static int by_id(const void *a, const void *b) {
  int64_t x = ((const agglo_id_index *)a)->id, y = ((const agglo_id_index *)b)->id;
  return (x > y) - (x < y);
}

size_t agglo_id_lookup(const agglo_id_index *map, size_t n, int64_t id) {
  agglo_id_index key = {id, 0}, *hit = bsearch(&key, map, n, sizeof *map, by_id);
  return hit ? hit->index : SIZE_MAX;
}

agglo_status agglo_bricks_start(const agglo_bricks *b, agglo_sim *sim, int64_t *step,
                                int64_t *last, agglo_id_index **map) {
  int64_t se[2] = {0, 0};
  if (b->rank == 0) se[0] = sim->sys.step, se[1] = sim->last_step;
  MPI_Bcast(se, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
  *step = se[0], *last = se[1], *map = NULL;
  int bad = 0;
  if (b->rank == 0) {
    agglo_system *s = &sim->sys;
    *map = malloc((s->n + 1) * sizeof **map);
    bad = !*map;
    for (size_t i = 0; !bad && i < s->n; i++) (*map)[i] = (agglo_id_index){s->id[i], i};
    if (!bad) qsort(*map, s->n, sizeof **map, by_id);
    agglo_status begun = bad ? AGGLO_OK : agglo_sim_begin(sim);
    if (begun != AGGLO_OK) bad = begun == AGGLO_ERROR_INPUT ? 3 : 2; /* 3: refused (a writer) */
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad == 1 ? agglo_error(AGGLO_ERROR_MEMORY, "out of memory")
         : bad == 3 ? (b->rank == 0 ? AGGLO_ERROR_INPUT : agglo_error(AGGLO_ERROR_INPUT, "rank 0 refused the start"))
         : bad   ? (b->rank == 0 ? AGGLO_ERROR_IO : agglo_error(AGGLO_ERROR_IO, "rank 0 failed to write"))
                 : AGGLO_OK;
}

int agglo_bricks_end_step(const agglo_bricks *b, agglo_sim *sim, const agglo_id_index *map,
                          int64_t step, int64_t last, agglo_step_info *info, double bad_id) {
  int flags = 0;
  if (b->rank == 0) {
    agglo_system *s = &sim->sys;
    s->step = step, s->t = (double)step * sim->cfg.dt;
    info->bad_particle = bad_id != 0 ? agglo_id_lookup(map, s->n, (int64_t)bad_id - 1) : SIZE_MAX;
    int final = step == last;
    if (agglo_sim_record_step(sim, info) != AGGLO_OK) {
      flags = AGGLO_BRICKS_FAILED;
    } else {
      if (final) flags |= AGGLO_BRICKS_FINAL | AGGLO_BRICKS_GATHER;
      if (agglo_outputs_due(sim, final)) flags |= AGGLO_BRICKS_GATHER;
      if (sim->callback && step % sim->callback_every == 0 && sim->callback(sim, sim->callback_user))
        flags |= AGGLO_BRICKS_STOP | AGGLO_BRICKS_GATHER;
    }
  }
  MPI_Bcast(&flags, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (flags & AGGLO_BRICKS_FAILED) { /* the last good state is the last restart point */
    char *err = agglo_error_buffer();
    if (b->rank == 0) agglo_error_append(". The last good state is the last restart point");
    MPI_Bcast(err, AGGLO_ERROR_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  return flags;
}

agglo_status agglo_bricks_write(const agglo_bricks *b, agglo_sim *sim, int flags) {
  int io = 0;
  int64_t step = 0;
  double t = 0;
  if (b->rank == 0) {
    int final = (flags & AGGLO_BRICKS_FINAL) != 0, state = sim->out.dir && (sim->out.which & AGGLO_OUTPUT_STATE);
    io = agglo_outputs_write(sim, final) != 0 ||
         (final ? state && agglo_outputs_save_state(sim, sim->out.dir) != 0
                : agglo_outputs_checkpoint(sim) != 0);
    if (!io && (flags & AGGLO_BRICKS_STOP)) io = agglo_outputs_stop(sim) != 0;
    char msg[512];
    if (final && sim->log && sim->model->final_warning && sim->model->final_warning(sim->state, msg, sizeof msg))
      sim->log(msg, sim->log_user);
    step = sim->sys.step, t = sim->sys.t;
  }
  MPI_Bcast(&io, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (io) return b->rank == 0 ? AGGLO_ERROR_IO : agglo_error(AGGLO_ERROR_IO, "rank 0 failed to write");
  if (flags & AGGLO_BRICKS_STOP) {
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&step, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return agglo_error(AGGLO_STOPPED, "stopped by the callback at step %lld (t = %g)", (long long)step, t);
  }
  return AGGLO_OK;
}

FILE *agglo_bricks_report(const agglo_bricks *b, const agglo_sim *sim, int64_t steps, double wall,
                          int rec, const double mine[4], const char *extra) {
  double sum[4], most[4];
  MPI_Reduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (b->rank != 0 || !sim->out.dir || steps <= 0) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/parallel.csv", sim->out.dir);
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  int K = b->size;
  fprintf(f, "ranks,px,py,pz,steps,wall_s,particles_mean,particles_max,ghosts_per_step_mean,"
          "records_sent_per_step_mean,bytes_sent_per_step_mean,exchange_s_max,exchange_share%s\n",
          extra);
  fprintf(f, "%d,%d,%d,%d,%lld,%.4g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%.4f", K, b->dims[0], b->dims[1],
          b->dims[2], (long long)steps, wall, sum[0] / K, most[0], sum[1] / K, sum[2] / K,
          8.0 * rec * sum[2] / K, most[3], most[3] / wall);
  return f;
}

int agglo_bricks_any_failed(const agglo_bricks *b, int fail) {
  int any = fail;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return 0;
  int who = fail ? b->rank : b->size, lowest;
  MPI_Allreduce(&who, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Bcast(agglo_error_buffer(), AGGLO_ERROR_LEN, MPI_CHAR, lowest, MPI_COMM_WORLD);
  return 1;
}

int agglo_bricks_hand_out(const agglo_bricks *b, size_t n, int rec, agglo_bricks_pack_fn pack,
                          const void *ctx, double **recs, size_t *mine) {
  int *counts = NULL, *displs = NULL, ok = 1;
  double *all = NULL;
  *recs = NULL, *mine = 0;
  if (b->rank == 0) { /* (a failure here is told to every rank before the scatter) */
    counts = calloc((size_t)b->size, sizeof *counts);
    displs = calloc((size_t)b->size + 1, sizeof *displs);
    int *who = malloc((n + 1) * sizeof *who), *fill = malloc((size_t)b->size * sizeof *fill);
    all = malloc(((size_t)rec * n + 1) * sizeof *all);
    ok = counts && displs && who && fill && all;
    for (size_t i = 0; ok && i < n; i++) { /* pack twice: the first only for the position */
      pack(ctx, i, all);
      who[i] = agglo_bricks_owner(b, all), counts[who[i]] += rec;
    }
    for (int r = 0; ok && r < b->size; r++) displs[r + 1] = displs[r] + counts[r];
    if (ok) memcpy(fill, displs, (size_t)b->size * sizeof *fill);
    for (size_t i = 0; ok && i < n; i++) {
      pack(ctx, i, all + fill[who[i]]);
      fill[who[i]] += rec;
    }
    free(fill);
    free(who);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int cnt = 0;
  if (ok) MPI_Scatter(counts, 1, MPI_INT, &cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double *got = ok ? malloc(((size_t)cnt + 1) * sizeof *got) : NULL;
  int bad = !got;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!bad) MPI_Scatterv(all, counts, displs, MPI_DOUBLE, got, cnt, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free(all), free(counts), free(displs);
  if (bad) {
    free(got);
    return -1;
  }
  *recs = got, *mine = (size_t)cnt / (size_t)rec;
  return 0;
}
