/* sizes.csv: the cluster-size distribution (time, step, size, clusters; long format) at each
   stats row, whose trigger it follows (io/write_stats.c). */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"

typedef struct {
  FILE *f;
} sizes_writer;

static int sizes_open(void *self, agglo_sim *sim) {
  sizes_writer *w = self;
  if (!(sim->out.which & AGGLO_OUTPUT_STATS)) return 0;
  if (!(w->f = agglo_writer_open_file(sim->out.dir, "sizes.csv", sim->restarted ? "a" : "w"))) return -1;
  if (ftell(w->f) == 0) fprintf(w->f, "time,step,size,clusters\n");
  return 1;
}

static int sizes_due(void *self, agglo_sim *sim, int final) {
  (void)self, (void)final;
  return sim->out.row_due_step == sim->sys.step;
}

static int sizes_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  sizes_writer *w = self;
  const agglo_stats_row *r = &sim->out.row;
  if (fwrite(r->sizes, 1, r->sizes_len, w->f) != r->sizes_len || fflush(w->f) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s/sizes.csv: write failed (disk full?)", sim->out.dir);
  return 0;
}

static int sizes_close(void *self, agglo_sim *sim) {
  sizes_writer *w = self;
  if (fclose(w->f) != 0) return agglo_error(AGGLO_ERROR_IO, "%s/sizes.csv: write failed", sim->out.dir);
  return 0;
}

const agglo_writer_class agglo_writer_sizes = {
    .name = "sizes.csv", .size = sizeof(sizes_writer), .open = sizes_open, .due = sizes_due,
    .write = sizes_write, .close = sizes_close};
