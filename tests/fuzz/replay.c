/* SPDX-License-Identifier: MIT */
/* tests/fuzz/replay.c: runs a fuzz harness over files, without libFuzzer (make check).
 *
 *   fuzz_NAME PATH...   each PATH a file or a directory (its regular files, not recursively)
 *
 * Every file is read whole and handed to LLVMFuzzerTestOneInput once; a broken promise aborts
 * inside the harness, a memory error or leak is the sanitizer build's to report.  Prints how many
 * files ran; exits 1 when a path cannot be read or holds no file at all (a corpus that went
 * missing is a failure, not a pass). */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include "fuzz.h"

static int
run_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    {
      fprintf (stderr, "replay: cannot open %s: %s\n", path, strerror (errno));
      return -1;
    }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc (cap);
  for (;;)
    {
      if (buf == NULL)
        {
          fclose (f);
          fprintf (stderr, "replay: out of memory reading %s\n", path);
          return -1;
        }
      n += fread (buf + n, 1, cap - n, f);
      if (n < cap)
        break;
      cap *= 2;
      uint8_t *nb = realloc (buf, cap);
      if (nb == NULL)
        free (buf);
      buf = nb;
    }
  int bad = ferror (f);
  fclose (f);
  if (bad)
    {
      free (buf);
      fprintf (stderr, "replay: cannot read %s\n", path);
      return -1;
    }
  /* libFuzzer hands the harness a buffer of exactly SIZE bytes: copy, so that ASan sees an
   * overread past the end as it would under the fuzzer */
  uint8_t *exact = malloc (n > 0 ? n : 1);
  if (exact == NULL)
    {
      free (buf);
      return -1;
    }
  memcpy (exact, buf, n);
  free (buf);
  LLVMFuzzerTestOneInput (exact, n);
  free (exact);
  return 1;
}

int
main (int argc, char **argv)
{
  long files = 0;
  for (int i = 1; i < argc; i++)
    {
      struct stat st;
      if (stat (argv[i], &st) != 0)
        {
          fprintf (stderr, "replay: %s: %s\n", argv[i], strerror (errno));
          return 1;
        }
      if (!S_ISDIR (st.st_mode))
        {
          if (run_file (argv[i]) < 0)
            return 1;
          files++;
          continue;
        }
      DIR *d = opendir (argv[i]);
      if (d == NULL)
        {
          fprintf (stderr, "replay: %s: %s\n", argv[i], strerror (errno));
          return 1;
        }
      struct dirent *e;
      while ((e = readdir (d)) != NULL)
        {
          if (e->d_name[0] == '.')
            continue;
          size_t len = strlen (argv[i]) + strlen (e->d_name) + 2;
          char *p = malloc (len);
          if (p == NULL)
            {
              closedir (d);
              return 1;
            }
          snprintf (p, len, "%s/%s", argv[i], e->d_name);
          if (stat (p, &st) == 0 && S_ISREG (st.st_mode))
            {
              if (run_file (p) < 0)
                {
                  free (p);
                  closedir (d);
                  return 1;
                }
              files++;
            }
          free (p);
        }
      closedir (d);
    }
  printf ("%s: %ld files replayed\n", argc > 0 ? argv[0] : "replay", files);
  if (files == 0)
    {
      fprintf (stderr, "replay: no files\n");
      return 1;
    }
  return 0;
}
