/* 64-bit FNV-1a checksums: the restart points' seals (io/checkpoint.c) and the ensemble members'
   done markers (core/ensemble.c). Byte order fixed: the same value on any machine. */
#ifndef AGGLO_CHECKSUM_H
#define AGGLO_CHECKSUM_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define AGGLO_FNV_OFFSET 0xcbf29ce484222325ULL
#define AGGLO_FNV_PRIME 0x100000001b3ULL

static inline uint64_t agglo_fnv_bytes(uint64_t h, const char *b, size_t n) {
  for (size_t k = 0; k < n; k++) h = (h ^ (unsigned char)b[k]) * AGGLO_FNV_PRIME;
  return h;
}

/* A 64-bit word, low byte first. */
static inline uint64_t agglo_fnv_word(uint64_t h, uint64_t w) {
  for (int k = 0; k < 8; k++) h = (h ^ ((w >> (8 * k)) & 0xff)) * AGGLO_FNV_PRIME;
  return h;
}

static inline uint64_t agglo_fnv_double(uint64_t h, double x) {
  uint64_t w;
  memcpy(&w, &x, sizeof w);
  return agglo_fnv_word(h, w);
}

/* The checksum of a file's bytes into *h: 0, or -1 when it cannot be read to its end. */
static inline int agglo_fnv_file(const char *path, uint64_t *h) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buf[65536];
  size_t n;
  uint64_t x = AGGLO_FNV_OFFSET;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) x = agglo_fnv_bytes(x, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) return -1;
  *h = x;
  return 0;
}

#endif
