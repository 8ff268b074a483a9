/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_wire.c: the wire codec's decoder (cn_wire_decode_string, certnn/wire.h).
 *
 * Any bytes: a status with a message.  An accepted record round-trips: encoding the decoded
 * instance succeeds, decoding that succeeds, and encoding it again gives the same text (the
 * encoder writes one canonical form, so decode . encode is the identity on what decoding
 * accepts). */
#include "fuzz.h"

static char *
encode (const cn_wire_op *w, cn_error *err)
{
  char *s = NULL;
  cn_status st = cn_wire_encode_string (w->op, w->params, w->n_in, w->in_shape, w->in_dtype, &s, err);
  if (st == CN_ENOMEM)
    return NULL;
  if (st != CN_OK)
    fuzz_fail ("wire", "an accepted record does not encode", err);
  return s;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  char *text = fuzz_strndup (data, size);
  if (text == NULL)
    return 0;
  cn_wire_op w, w2;
  memset (&w, 0, sizeof w);
  memset (&w2, 0, sizeof w2);
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn_wire_decode_string (text, &w, &err);
  fuzz_check_status ("wire", st, &err);
  free (text);
  if (st != CN_OK)
    {
      cn_wire_op_clear (&w);
      return 0;
    }
  char *once = encode (&w, &err), *twice = NULL;
  if (once != NULL)
    {
      st = cn_wire_decode_string (once, &w2, &err);
      if (st != CN_OK && st != CN_ENOMEM)
        fuzz_fail ("wire", "the encoding of an accepted record does not decode", &err);
      if (st == CN_OK)
        {
          twice = encode (&w2, &err);
          if (twice != NULL && strcmp (once, twice) != 0)
            fuzz_fail ("wire", "encode . decode is not the identity on an encoding", &err);
        }
    }
  free (once);
  free (twice);
  cn_wire_op_clear (&w);
  cn_wire_op_clear (&w2);
  return 0;
}
