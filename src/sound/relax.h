/* SPDX-License-Identifier: MIT */
/* src/sound/relax.h: the kit the CROWN arms build their relaxations and error charges with
 * (internal; below the operator table: it knows no operator).
 *
 * A CROWN sweep (src/crown/sweep.c) keeps, per row s, the invariant of ALGORITHMS.md 6.4:
 *     C o(x) >= sum_frontier lam_v[s] . v(x) + bias[s] - charge[s],
 * where lam and bias are binary64 arrays read as exact reals and charge[s] >= 0 collects the
 * rounding errors, accumulated upward.  An arm computes its lam_in and bias contribution in
 * round-to-nearest and uses the charges below to account for what the rounding may have lost. */
#ifndef CN_SOUND_RELAX_H
#define CN_SOUND_RELAX_H

#include <mpfi.h>
#include "certnn/box.h"
#include "sound/sound.h"

/* The operator table's view of a node (src/ops/ops_impl.h); the kit only passes it through. */
struct cn_node_view;

/* One backward step of a CROWN sweep through a node v = f(u_1..u_n) (ALGORITHMS.md 2.2).
 * On entry the sweep's invariant holds for every row s:
 *     C o(x) >= lam_out[s] . v(x) + (other frontier terms) + bias[s] - charge[s].
 * The arm writes lam_in[i] (zero on entry, rows x numel(u_i)) for every non-constant input,
 * adds to bias[s] and charge[s], so that afterwards
 *     lam_out[s] . v(x) >= sum_i lam_in[i][s] . u_i(x) + (bias added) - (charge added)
 * holds for every x with u_i(x) in in_box[i], the arrays read as exact reals. */
typedef struct cn_crown_step
{
  const struct cn_node_view *nv;      /* the node, for its arm */
  const char *node;                   /* the node's name, for messages ("" when it has none) */
  const void *params;                 /* the node's attribute record (NULL without one) */
  int64_t n_out;                      /* numel(v), the output this step relaxes */
  int64_t rows;
  const double *lam_out;              /* rows x numel(out) */
  double *const *lam_in;              /* n_in entries; NULL for a constant input */
  const cn_box *const *in_box;        /* n_in sound boxes (degenerate for constants) */
  double *bias;                       /* rows; round-to-nearest accumulations */
  double *charge;                     /* rows; >= 0, accumulated upward */
  int threads;
  int slope;                          /* cn_slope: lower slope of relaxing arms (relu) on unstable entries */
  void **memo;                        /* NULL, or this node output's slot in the analysis: an arm may
                                         keep there (malloc'd; the analysis frees it) what it derived
                                         from in_box alone, and reuse it in later steps through the
                                         node, since an analysis never changes a box a sweep has read */
  /* alpha-CROWN (ALGORITHMS.md 4; src/crown/alpha.c).  All NULL in a plain CROWN sweep. */
  const double *theta;                /* NULL, or the free parameters of this output's lines, one per
                                         entry (the arm's rule has an ALPHA hook): row s's at
                                         theta + s * theta_stride (theta_stride 0: one set shared by
                                         every row).  Each lies in its valid set (the hook's
                                         projection); an arm refuses one outside it with CN_EINVAL */
  int64_t theta_stride;
  int theta_unchecked;                /* tests only (tests/check_alpha.c): the arm takes THETA as it
                                         is, valid or not, so that a test can show the unsound bound
                                         the refusal prevents and that the checks catch it; no engine
                                         ever sets it */
  double *fwd_k, *fwd_b;              /* NULL, or rows x numel(out): an elementwise arm writes, for
                                         every row and entry, the line its step used (the lower one
                                         where lam >= 0, else the upper one): v^ = fwd_k u^ + fwd_b,
                                         the forward pass of the gradient (4.4 (2)) */
  double *fwd_k2;                     /* NULL, or (a node of two inputs) rows x numel(out), zeroed:
                                         an arm whose lines have a slope on the second input as well
                                         writes it here, v^ = fwd_k u^ + fwd_k2 w^ + fwd_b */
  double *grad_a, *grad_b;            /* NULL, or rows x numel(out) (with THETA): the derivative of
                                         the step's contribution  lam_in[0][s] . u + (bias added)[s]
                                         in theta[s][j] is  grad_a[s][j] u_j + grad_b[s][j]  (4.4 (3)) */
  double *grad_a2;                    /* NULL, or (a node of two inputs, with THETA) rows x numel(out),
                                         zeroed: the second input's part, + grad_a2[s][j] w_j */
} cn_crown_step;

/* ---- error charges (src/sound/charge.c) --------------------------------------------------- */

/* Adds the exact-real quantity  sum_j a[j] b[j]  (length K) to bias[s]: bias[s] gets the RN
 * result and charge[s] the (G) error of the dot product plus that of the final addition. */
void cn__crown_add_dot (const cn_crown_step *st, int64_t s, int64_t k, const double *a, const double *b);

/* charge[s] := an upper bound of charge[s] + E, E >= 0 an upper bound of an error (NaN is read
 * as +inf, which makes the row's bound -inf). */
void cn__crown_charge (const cn_crown_step *st, int64_t s, double e);

/* Adds to bias[s] the exact real sum whose round-to-nearest value is D, computed in any order
 * over CNT terms whose magnitudes sum (in RN) to T: charges the (G) error cn__dot_err (T, CNT)
 * and the rounding of the addition.  UNBOUNDED (some term infinite) makes the row's charge
 * +inf instead, so its bound becomes -inf. */
void cn__crown_add_sum (const cn_crown_step *st, int64_t s, double d, double t, int64_t cnt, int unbounded);

/* Adds the double V (exact) to bias[s], charging the rounding of the addition. */
void cn__crown_add_bias (const cn_crown_step *st, int64_t s, double v);

/* For every row s, adds to bias[s] a lower bound r_s <= min over BOX of lam_out[s] . v
 * (cn__box_min_dot, its rounding charged there), or charges +inf where r_s is -inf: the step of
 * a node bounded by its own box alone.  BOX has st->n_out entries. */
void cn__crown_add_box_min (const cn_crown_step *st, const cn_box *box);

/* For arms whose lam_in entries are each ONE rounding of an exact real (a product or a
 * quotient of two doubles, such as lam_out*k or lam_out/c): charges, for every row s,
 *     sum_j (2u |lam_in[s][j]| + eta) m[j]   with m[j] = max(|lo_j|, |hi_j|) of BOX,
 * an upper bound of sum_j |exact_sj - lam_in_sj| |x_j| for x in BOX.  N = numel(input). */
void cn__crown_charge_entrywise (const cn_crown_step *st, const double *lam_in, int64_t n, const cn_box *box);

/* For affine arms  v = A u + c  whose lam_in = fl(lam_out A) is computed with inner products
 * of length at most K, and bias contribution fl(lam_out . c) (added with cn__crown_add_bias
 * or accumulated by the arm in RN) with inner length at most K as well: charges, per row s,
 *     gamma_K (|lam_out[s]| . w_up) + K eta (m1_up + 1)
 * where W_UP[o] >= (|A| m + |c|)[o] for every output entry o (m from the input boxes) and
 * M1_UP >= ||m||_1.  This bounds |(lam_out A - lam_in) u| + |lam_out c - fl(lam_out . c)| by
 * (G) (ALGORITHMS.md 6.4, linear step). */
void cn__crown_charge_affine (const cn_crown_step *st, const double *w_up, int64_t k, double m1_up);

/* W_UP and M1_UP of cn__crown_charge_affine depend on the input boxes alone, which an analysis
 * never changes once a sweep has read them: an affine arm keeps them in its step's memo.
 * cn__crown_charge_affine_memo charges with the kept ones (inner length K) and returns 1 if
 * st->memo holds them for N = st->n_out entries, else returns 0 and charges nothing;
 * cn__crown_affine_keep stores a copy (nothing when there is no memo or no memory: the next step
 * recomputes them). */
int cn__crown_charge_affine_memo (const cn_crown_step *st, int64_t k);
void cn__crown_affine_keep (const cn_crown_step *st, const double *w_up, double m1_up);

/* m[j] = max(|lo_j|, |hi_j|) into M (length box->n); returns an upper bound of ||m||_1
 * (+inf if some entry is infinite). */
double cn__box_magnitude (const cn_box *box, double *m);

/* ---- elementwise relaxations (src/sound/relax.c) ------------------------------------------ */

/* An IBP arm, as the table declares it (src/ops/ops_impl.h). */
typedef cn_status (*cn__ibp_arm) (const struct cn_node_view *nv, const cn_box *const *in, cn_box *out,
                                  cn_error *err);

/* The two lines of one entry of an elementwise y = f(x) whose input box is [l, u]: as exact
 * reals, for every z in [l, u],
 *     kl z + bl <= f(z) <= ku z + bu.
 * bl = -inf means "no lower line", bu = +inf "no upper line"; the slopes are finite doubles. */
typedef struct cn__relax_line
{
  double kl, bl, ku, bu;
  int free_lower;       /* 1: the lower line  k z + bl  is valid for every slope k of the parameter's
                           valid set (leakyReLU's [a, 1], bl = 0), so where the step gives theta,
                           cn__crown_lines takes row s's theta[s][j] as the slope instead of kl */
  /* alpha-CROWN's tangent points (cn__relax_lines, for a function with D2F): where t_free[side]
     (0 lower, 1 upper), that side's line is the tangent at t = t_base + (theta - 1/2) t_span[side][h]
     for theta in [0, 1], h = (theta >= 1/2): piecewise linear, theta = 1/2 giving the line above */
  int t_free[2];
  double t_base[2], t_span[2][2];
} cn__relax_line;

/* The CROWN step through an elementwise node v = f(u) (one input, numel(u) = numel(v)) given
 * LN[j], the lines of entry j over st->in_box[0]: for each row s and entry j,
 * lam_in[j] = fl(lam_j k) with k = kl if lam_j >= 0, else ku, and bias[s] += sum_j lam_j b
 * (b = bl or bu likewise); with st->theta, k = theta[s][j] on the lower side of the entries marked
 * free_lower (and grad_a = lam_j there, grad_b = 0, when given).  Charges: the (G) error of the bias sum and its addition, and for
 * the rounded products (k neither 0 nor +-1) sum_j (2u |lam_in_j| + eta) max(|l_j|, |u_j|),
 * bounded with (N) (leakyReLU's arm uses it too).  A row whose coefficient meets a side without a
 * line gets the charge +inf.  OP names the operator in messages (CN_EINVAL on a constant
 * input or a box of the wrong size). */
cn_status cn__crown_lines (const cn_crown_step *st, const char *op, const cn__relax_line *ln, cn_error *err);

/* Entry J's lines into LN, given YLO and YHI, the node's IBP box at J (-inf and +inf when the arm
 * asked for none). */
typedef cn_status (*cn__entry_lines_fn) (const cn_crown_step *st, int64_t j, double ylo, double yhi,
                                         cn__relax_line *ln, cn_error *err);

/* The whole CROWN step of an elementwise arm that writes each entry's lines itself: the node's
 * IBP box over st->in_box (arm IBP; none where IBP is NULL), F for every entry, then
 * cn__crown_lines.  CN_EINVAL on a constant first input; IBP's and F's errors stay theirs. */
cn_status cn__crown_box_lines (const cn_crown_step *st, const char *op, cn__ibp_arm ibp, cn__entry_lines_fn f,
                               cn_error *err);

/* Where st->fwd_k is not NULL, records in st->fwd_k and st->fwd_b the line of LN each row used
 * at each entry: the lower one where lam_out >= 0, else the upper one (a side without a line
 * records slope 0 and intercept 0: the row's bound is -inf anyway).  cn__crown_lines calls it. */
void cn__crown_record_lines (const cn_crown_step *st, const cn__relax_line *ln);

/* A scalar function f for the line constructors, in at most two pieces: (-inf, brk] (piece 0)
 * and [brk, +inf) (piece 1) when SPLIT, else one piece 0.  On each piece f is smooth (one-sided
 * at brk) and convex (CURV > 0) or concave (CURV < 0); a linear piece may answer either.  F and
 * DF are approximations in binary64 (they only choose slopes and tangent points); F_ENCL and
 * DF_ENCL enclose f(x) and f'(x) (the one-sided derivative of the piece) at the double x in
 * binary64 ([*lo, *hi], sound: src/sound/elementary.c), or, where they are NULL, F_MPFI and
 * DF_MPFI do so in Y at Y's precision; either may give +-inf where f does (log at 0) and NaN
 * outside the domain.
 * A function whose curvature changes sign at points that are not doubles, or more than once
 * (sin, tan, silu, gelu), has CURV NULL and D2_BOUND instead: an upper bound of |f''| over the
 * real interval [a, b] (+inf where f is not twice differentiable on all of it, NaN where
 * undefined), and only F and F_ENCL or F_MPFI besides (piece 0); its lines are the shifted
 * chords of relax.c's top comment (G4), with no tangent parameters. */
typedef struct cn__relax_fn
{
  int split;
  double brk;
  double tangent_cap;   /* > 0: the lower tangent point of a convex f is at most l + cap (exp) */
  int (*curv) (int piece, const void *p);
  double (*f) (double x, int piece, const void *p);
  double (*df) (double x, int piece, const void *p);
  void (*f_mpfi) (mpfi_ptr y, double x, int piece, const void *p);
  void (*df_mpfi) (mpfi_ptr y, double x, int piece, const void *p);
  void (*f_encl) (double x, int piece, const void *p, double *lo, double *hi);
  void (*df_encl) (double x, int piece, const void *p, double *lo, double *hi);
  double (*d2f) (double x, int piece, const void *p);   /* NULL, or f'' in binary64: the tangent
                                                           points are then alpha-CROWN parameters */
  double (*d2_bound) (double a, double b, const void *p); /* CURV NULL: sup of |f''| on [a, b] */
} cn__relax_fn;

/* A relaxation's binary64 function rx_NAME (x, piece, p) returning EXPR, and its MPFI enclosure
 * rx_NAME (y, x, piece, p): y := what BODY computes from y = [x, x], with the scratch c (at y's
 * precision); both may read x, i (the piece) and p (the record). */
#define CN__RX_FN(NAME, EXPR)                                                                     \
  static double rx_##NAME (double x, int i, const void *p)                                        \
  {                                                                                               \
    (void) x;                                                                                     \
    (void) i;                                                                                     \
    (void) p;                                                                                     \
    return EXPR;                                                                                  \
  }
#define CN__RX_MPFI(NAME, BODY)                                                                   \
  static void rx_##NAME (mpfi_ptr y, double x, int i, const void *p)                              \
  {                                                                                               \
    (void) i;                                                                                     \
    (void) p;                                                                                     \
    mpfi_t c;                                                                                     \
    mpfi_init2 (c, mpfi_get_prec (y));                                                            \
    mpfi_set_d (y, x);                                                                            \
    BODY;                                                                                         \
    mpfi_clear (c);                                                                               \
  }

/* Lines for every entry of the input box IN (n entries), given OUT, a sound box of f over IN
 * (the node's IBP box): slopes by ALGORITHMS.md 3 (G1 on a convex or concave box, G3 on a
 * convex-then-concave one, the chord for both on a concave-then-convex one), intercepts by G2
 * (exact-real sound for any slope).  Degenerate boxes, infinite ends and anything not finite
 * fall back to k = 0 with the ends of OUT.  P is the attribute record; the entries are shared
 * among THREADS OpenMP threads (F's functions must be thread-safe: MPFR built with TLS). */
cn_status cn__relax_lines (const cn__relax_fn *f, const void *p, const cn_box *in, const cn_box *out,
                           cn__relax_line *ln, int threads, const char *op, cn_error *err);

/* The whole CROWN arm of an elementwise operator with one input relaxed by F: the node's IBP
 * (arm IBP) over st->in_box[0], cn__relax_lines with the node's attribute record, then
 * cn__crown_lines.  With st->theta (F has D2F): on the sides with a tangent parameter each row's
 * line is the tangent at its own point (cn__relax_line's t_*), its intercept G2's (sound for any
 * theta; a theta outside [0, 1] is refused with CN_EINVAL unless st->theta_unchecked), and the
 * step's grad_a, grad_b get the derivative of lam (k(t) z + b(t)) in theta:
 * lam f''(t) t_span (z - t) (t_span on theta's half; b(t) = f(t) - t f'(t) to first order, the envelope of G2's minimum). */
cn_status cn__crown_relax (const cn_crown_step *st, const char *op, const cn__relax_fn *f, cn__ibp_arm ibp,
                           cn_error *err);

/* cn__crown_relax with P in place of the node's attribute record as F's P (an arm whose function
 * depends on more than its attributes: pow's constant exponent). */
cn_status cn__crown_relax_with (const cn_crown_step *st, const char *op, const cn__relax_fn *f, const void *p,
                                cn__ibp_arm ibp, cn_error *err);

/* ---- multilinear functions (src/sound/relax.c) ---------------------------------------------- */

/* An elementwise v = f(u_1, ..., u_K), K <= CN__ML_MAX_IN inputs of the output's size, f
 * multilinear (affine in each input when the others are fixed: x y, lerp, addcmul).  F_MPFI
 * encloses f at a point X (K doubles) in Y; SLOPES writes, from the boxes' ends of one entry
 * (LO, HI: K each), the slopes of the lower plane (KL) and the upper one (KU), any doubles
 * (heuristics: McCormick's for a product). */
#define CN__ML_MAX_IN 3
typedef struct cn__multilinear
{
  int k;
  void (*f_mpfi) (mpfi_ptr y, const double *x, const void *p);
  void (*slopes) (const double *lo, const double *hi, const void *p, double *kl, double *ku);
} cn__multilinear;

/* The CROWN step through such a node: per entry the planes  kl . u + bl <= f(u) <= ku . u + bu
 * over the input boxes, whose intercepts are exactly sound: f - k . u is multilinear, so its
 * extremes over a box are at corners, and bl (bu) is the least (greatest) of its 2^K corner
 * values, each enclosed in MPFI (f_mpfi, minus k . corner) and rounded outward.  A constant input
 * takes slope 0 (its box is one point, so the corners hold its value).  An infinite end (no plane)
 * leaves the side to the node's IBP box (IBP, k = 0).  Then lam_in[i] = fl(lam k_i) and bias +=
 * lam . b per row (the lower plane where lam >= 0), charged as cn__crown_lines does.  OP names the
 * operator in messages. */
cn_status cn__crown_multilinear (const cn_crown_step *st, const char *op, const cn__multilinear *f,
                                 cn__ibp_arm ibp, cn_error *err);

/* The step through an elementwise node of K inputs (each of the output's size, or constant:
 * lam_in[i] NULL) given per entry j the planes  kl . u + bl <= v <= ku . u + bu:  KK[2 K j ..]
 * holds kl (K slopes) then ku, BB[2 j] bl and BB[2 j + 1] bu (an infinite or NaN intercept: no
 * plane on that side, and a row that needs it gets the charge +inf).  lam_in[i] = fl(lam k_i),
 * bias += lam . b (the lower plane where lam >= 0), charged: the bias sum's (G) error and the
 * products' roundings times the input boxes' magnitudes (cn__crown_charge_entrywise). */
cn_status cn__crown_planes (const cn_crown_step *st, const char *op, int k, const double *kk, const double *bb,
                            cn_error *err);

/* The alpha-CROWN step through an elementwise node of two variable inputs (lam_in[0], lam_in[1]
 * both given) whose planes depend on each row's parameters (st->theta, each in [0, 1]): PLANE
 * writes, for entry J of a row with coefficient LAM (the side: below where LAM >= 0) and
 * parameter THETA, the plane K[0] u_0 + K[1] u_1 + *B on that side of v over the input boxes (*B
 * infinite: none, and a row that needs it gets the charge +inf), and the derivative of
 * k . u + b in THETA as DK[0] u_0 + DK[1] u_1 + *DB (zero where the plane does not move with it).
 * The step refuses a parameter outside [0, 1] (CN_EINVAL, unless theta_unchecked), then per row
 * lam_in[i] = fl(lam k_i), bias += lam . b, the line and the derivatives times lam recorded for
 * the gradient (fwd_k, fwd_k2, fwd_b; grad_a, grad_a2, grad_b), charged as cn__crown_planes. */
typedef void (*cn__plane2_fn) (const cn_crown_step *st, const void *ctx, int64_t j, int upper, double theta,
                               double *k, double *b, double *dk, double *db);
cn_status cn__crown_planes2_theta (const cn_crown_step *st, const char *op, const void *ctx, cn__plane2_fn plane,
                                   cn_error *err);

/* The working state of an arm with planes (cn__crown_planes' KK and BB for K inputs, and the
 * node's IBP box OUT): cn__planes_open checks the inputs' boxes (CN_EINVAL: a wrong size, or every
 * input constant), allocates KK (zeroed) and BB, and computes OUT with the arm IBP;
 * cn__planes_settle stores entry J's intercepts BL, BU (its slopes are in KK already), a side whose
 * intercept is not finite taking slope 0 and OUT's end instead; cn__planes_step runs
 * cn__crown_planes and closes; cn__planes_close frees (after a failure). */
typedef struct cn__planes
{
  int k, has_out;
  double *kk, *bb;
  cn_box out;
} cn__planes;
cn_status cn__planes_open (const cn_crown_step *st, const char *op, int k, cn__ibp_arm ibp, cn__planes *p,
                           cn_error *err);
void cn__planes_settle (cn__planes *p, int64_t j, double bl, double bu);
cn_status cn__planes_step (const cn_crown_step *st, const char *op, cn__planes *p, cn_error *err);
void cn__planes_close (cn__planes *p);

/* ---- planes over slices (src/sound/relax.c) -------------------------------------------------- */

/* Per output q of a node laid out OUTER x N x INNER over its input (q = (o N + i) INNER + in, its
 * slice the entries (o N + j) INNER + in, j < N: softmax along an axis, layerNorm along the last),
 * two planes  A_lo[q] . x_slice + B[2q] <= v_q <= A_up[q] . x_slice + B[2q + 1]  (N slopes each;
 * an infinite B: no plane), W_UP[q] >= sum_j |A_side[q]_j| m_j over both sides (m the input box's
 * magnitudes), M1 >= ||m||_1.  Made once per node and box (cn__slice_planes_new, zeroed, freed
 * with free: it may live in the step's memo); cn__crown_slice_planes steps with it: lam_x +=
 * lam_q A_side[q] over each slice (RN sums of at most N products, charged by
 * cn__crown_charge_affine with K = N) and bias += lam . B_side (cn__crown_add_dot; a row meeting a
 * side without a plane gets the charge +inf). */
typedef struct cn__slice_planes
{
  int64_t outer, n, inner, total;
  double m1;
  double *A, *B, *w_up;
  double data[];
} cn__slice_planes;
cn__slice_planes *cn__slice_planes_new (int64_t outer, int64_t n, int64_t inner);
/* The step with the planes BUILD makes (filling A, B, W_UP and M1 of a zeroed record), made once
 * per node and box: kept in st->memo when there is one (reused while it matches the layout). */
typedef cn_status (*cn__slice_planes_build) (const cn_crown_step *st, cn__slice_planes *p, cn_error *err);
cn_status cn__crown_slice_planes_kept (const cn_crown_step *st, const char *op, int64_t outer, int64_t n,
                                       int64_t inner, cn__slice_planes_build build, cn_error *err);
cn_status cn__crown_slice_planes (const cn_crown_step *st, const char *op, const cn__slice_planes *p,
                                  cn_error *err);

/* G2 alone: a lower bound of the minimum (UPPER = 0) or an upper bound of the maximum (UPPER = 1)
 * of f(z) - k z over [l, u] (finite, l <= u) for F with CURV; -inf (+inf) where nothing finite is
 * proved. */
double cn__relax_extreme (const cn__relax_fn *f, const void *p, double l, double u, double k, int upper);

/* ---- a factor times a function (src/sound/relax.c) ------------------------------------------ */

/* v = x0 + s x h(y) entry by entry (x0 the input ADD, slope 1, or none: ADD = -1; x the input IX,
 * y the input IY; s a double; h a function of the kit with CURV, HP its record): div (h = 1/y),
 * safeDiv (1/(y + eps)), addcdiv.  The planes take McCormick's slopes on s x times r = h(y) and
 * r's tangent or chord (heuristics); the intercepts are exact: v - k . u is affine in x, so its
 * extremes are at x = xl or xu, where it is s c h(y) - ky y (+ a constant), whose extremes over
 * [yl, yu] are G2's with the scale s c in MPFI.  A y box across h's break, an infinite end or a
 * failed enclosure leaves that side to the node's IBP box.  Then cn__crown_planes. */
typedef struct cn__times_fn
{
  int add, ix, iy;
  double scale;
  const cn__relax_fn *h;
  const void *hp;
} cn__times_fn;
cn_status cn__crown_times_fn (const cn_crown_step *st, const char *op, const cn__times_fn *t, int k,
                              cn__ibp_arm ibp, cn_error *err);

/* 1/(y + e) with P pointing to the double e (exact, finite): concave below -e, convex above;
 * its break is at 0, so a record with e != 0 needs a copy with brk = -e. */
extern const cn__relax_fn cn__relax_inv_shift;

/* The ALPHA hook (ops_impl.h) of every operator relaxed by a cn__relax_fn with tangent
 * parameters: one row of THETA over the input box IN (n entries): with INIT the default 1/2
 * (CROWN's line on either side, the tangent point slopes() chose), else every entry clamped to
 * [0, 1] (NaN to the default).  NV and SLOPE are not needed: what a theta means on an entry's box
 * is tangent_range's (relax.c). */
void cn__relax_alpha (const struct cn_node_view *nv, const cn_box *in, int slope, int init, double *theta);

#endif
