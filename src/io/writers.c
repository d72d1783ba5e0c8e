/* The list of the built-in writers (io/writer_list.h). Compiled into each library beside the
   objects, as the model registry is, so that a test can build the library with a list of its
   own (tests/io/toy_writer.c). */
#include "io/writer.h"

#define AGGLO_WRITER(w) extern const agglo_writer_class w;
#include "io/writer_list.h"
#undef AGGLO_WRITER

#define AGGLO_WRITER(w) &w,
const agglo_writer_class *const agglo_writer_list[] = {
#include "io/writer_list.h"
};
#undef AGGLO_WRITER

const size_t agglo_writer_count = sizeof agglo_writer_list / sizeof agglo_writer_list[0];
