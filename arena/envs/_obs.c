/* The environments' observation array in C: the same floats as ``arena.envs.encoding``'s
 * ``encode_match_py``, and the environments' step around it.
 *
 * The Python encoder is the reference (and what runs where this module could not be built);
 * tests check that both give the same array on every decision of whole matches of every rule
 * set. This one exists for the environments' step: an observation is some 60 writes into a
 * 480-float array, each a Python-level numpy store of a fraction of a microsecond, against the
 * engine's step of about as much in all.
 *
 * Two ways in. ``fill`` and ``Observer.observe`` write into the caller's arrays from
 * ``Match.information_set``. ``Observer.observe_new`` (PettingZoo's ``last()``), ``legal_ids``
 * (OpenSpiel's legal actions), ``engine_action`` and ``apply`` (a step) read the engine's state
 * as ``Match`` keeps it, through the descriptors of its slots (``encoding.MATCH_SLOTS``; the
 * Python side checks that they are there and that the phases are the decisions in order), and
 * make their arrays through NumPy's C API: the Python calls around the writing (the
 * information set's tuple, the decision properties, two ``np.empty``) had come to cost several
 * times the writing itself.
 *
 * The layout's offsets are those of ``arena.envs.encoding`` (``LAYOUT`` below; the Python
 * module refuses this one if they differ). The rule set's five floats are encoded by the
 * caller once a match and copied as they are.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
/* NumPy's C API, for observe_new's two new arrays: np.empty from C costs several times the
 * writing of the observation */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#define N_DECISIONS 5
#define DECISION 0
#define TO_ACT (DECISION + N_DECISIONS)
#define SEAT (TO_ACT + 1)
#define FIRST_DRAWER (SEAT + 1)
#define HAND (FIRST_DRAWER + 1)
#define LOOKING_AT (HAND + 52)
#define OWN_DISCARDS (LOOKING_AT + 52)
#define PUT_ASIDE (OWN_DISCARDS + 52)
#define PICKED (PUT_ASIDE + 52)
#define PLAYED_BY_ME (PICKED + 52)
#define PLAYED_BY_OPP (PLAYED_BY_ME + 52)
#define STOCK (PLAYED_BY_OPP + 52)
#define BROKEN (STOCK + 1)
#define HAND_NUMBER (BROKEN + 1)
#define SEATS (HAND_NUMBER + 1)
#define SEAT_SIZE 50
#define RULES (SEATS + 2 * SEAT_SIZE)
#define SIZE (RULES + 5)
#define N_RULES 5
#define N_ACTIONS 71
/* within a seat's block */
#define S_SCORE 0
#define S_BAGS 1
#define S_BID 2
#define S_DN 17
#define S_TRICKS 18
#define S_EXCHANGED 19
#define S_DRAWS 24

static PyObject *empty_tuple;
static PyObject *s_score, *s_bags, *s_bid, *s_double_nil, *s_tricks_won, *s_cards_exchanged,
    *s_draw_choices;

static int
float_array(PyObject *obj, Py_ssize_t n, const char *what, Py_buffer *view, int flags)
{
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != 4 || view->format == NULL || strcmp(view->format, "f") != 0
        || view->len != n * 4) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "%s must be a float32 array of %zd values", what, n);
        return -1;
    }
    return 0;
}

/* A card 0-51 from a Python int; -1 with an exception set if it is not one. */
static inline int
card_of(PyObject *obj)
{
    long c = PyLong_AsLong(obj);
    if (c == -1 && PyErr_Occurred())
        return -1;
    if (c < 0 || c > 51) {
        PyErr_Format(PyExc_ValueError, "a card is 0-51, got %ld", c);
        return -1;
    }
    return (int)c;
}

static inline int
mask_of(PyObject *obj, unsigned long long *mask)
{
    *mask = PyLong_AsUnsignedLongLong(obj);
    if (*mask == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (*mask >> 52) {
        PyErr_SetString(PyExc_ValueError, "a card mask holds bits 0-51 only");
        return -1;
    }
    return 0;
}

static inline void
put_bits(float *v, unsigned long long mask)
{
    while (mask) {
        v[__builtin_ctzll(mask)] = 1.0f;
        mask &= mask - 1;
    }
}

static inline void
put_bits_mask(signed char *m, unsigned long long mask)
{
    while (mask) {
        m[__builtin_ctzll(mask)] = 1;
        mask &= mask - 1;
    }
}

/* An attribute of a SeatView as a long; None as -1. */
static int
attr_long(PyObject *view, PyObject *name, long *out)
{
    PyObject *value = PyObject_GetAttr(view, name);
    if (value == NULL)
        return -1;
    if (value == Py_None) {
        *out = -1;
    } else {
        *out = PyLong_AsLong(value);
    }
    Py_DECREF(value);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* One seat's block from its SeatView (encoding._encode_seat). */
static int
put_seat(float *v, PyObject *view, long target_score)
{
    long score, bags, bid, dn, tricks, exchanged;
    if (attr_long(view, s_score, &score) < 0 || attr_long(view, s_bags, &bags) < 0
        || attr_long(view, s_bid, &bid) < 0 || attr_long(view, s_double_nil, &dn) < 0
        || attr_long(view, s_tricks_won, &tricks) < 0
        || attr_long(view, s_cards_exchanged, &exchanged) < 0)
        return -1;
    if (bid < -1 || bid > 13 || exchanged < -1 || exchanged > 3) {
        PyErr_SetString(PyExc_ValueError, "a seat's bid is 0-13 or None, its exchange 0-3");
        return -1;
    }
    v[S_SCORE] = (float)((double)score / (double)target_score);
    v[S_BAGS] = (float)((double)bags / 10.0);
    v[S_BID + bid + 1] = 1.0f;
    v[S_DN] = dn != 0;
    v[S_TRICKS] = (float)((double)tricks / 13.0);
    v[S_EXCHANGED + exchanged + 1] = 1.0f;
    PyObject *draws = PyObject_GetAttr(view, s_draw_choices);
    if (draws == NULL)
        return -1;
    if (draws != Py_None) {
        if (!PyTuple_Check(draws) || PyTuple_GET_SIZE(draws) > 13) {
            Py_DECREF(draws);
            PyErr_SetString(PyExc_ValueError, "a seat's draw choices are a tuple of 13 at most");
            return -1;
        }
        for (Py_ssize_t t = 0; t < PyTuple_GET_SIZE(draws); t++) {
            int kept = PyObject_IsTrue(PyTuple_GET_ITEM(draws, t));
            if (kept < 0) {
                Py_DECREF(draws);
                return -1;
            }
            v[S_DRAWS + 2 * t] = 1.0f;
            v[S_DRAWS + 2 * t + 1] = (float)kept;
        }
    }
    Py_DECREF(draws);
    return 0;
}

/* The observation array of seat into v (SIZE floats), from info (Match.information_set(seat));
 * decision -1 (none) to 4, to_act -1 (none), 0 or 1; rules the rule set's N_RULES floats.
 * The hand's card mask into *hand. 0, or -1 with an exception set. */
static int
fill_core(float *v, PyObject *info, long seat, long decision, long to_act, PyObject *picked,
          const float *rules, long max_hands, long target_score, unsigned long long *hand)
{
    if (!PyTuple_Check(info) || PyTuple_GET_SIZE(info) != 11) {
        PyErr_SetString(PyExc_TypeError, "info must be Match.information_set's 11-tuple");
        return -1;
    }
    if (!PyTuple_Check(picked)) {
        PyErr_SetString(PyExc_TypeError, "picked must be a tuple of cards");
        return -1;
    }
    if ((seat != 0 && seat != 1) || decision < -1 || decision >= N_DECISIONS || max_hands < 1
        || target_score < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "seat 0/1, decision -1 to 4, max_hands and target_score >= 1");
        return -1;
    }
    PyObject *seats = PyTuple_GET_ITEM(info, 6);
    if (!PyTuple_Check(seats) || PyTuple_GET_SIZE(seats) != 2) {
        PyErr_SetString(PyExc_TypeError, "info's seats must be a pair of SeatView");
        return -1;
    }
    PyObject *discards = PyTuple_GET_ITEM(info, 4), *plays = PyTuple_GET_ITEM(info, 7),
             *winners = PyTuple_GET_ITEM(info, 8), *looking = PyTuple_GET_ITEM(info, 3);
    if (!PyList_Check(discards) || !PyList_Check(plays) || !PyList_Check(winners)) {
        PyErr_SetString(PyExc_TypeError, "info's discards, plays and winners must be lists");
        return -1;
    }
    long hand_number = PyLong_AsLong(PyTuple_GET_ITEM(info, 0));
    long first_drawer = PyLong_AsLong(PyTuple_GET_ITEM(info, 1));
    long stock_size = PyLong_AsLong(PyTuple_GET_ITEM(info, 5));
    int broken = PyObject_IsTrue(PyTuple_GET_ITEM(info, 9));
    unsigned long long aside;
    if (PyErr_Occurred() || broken < 0 || mask_of(PyTuple_GET_ITEM(info, 2), hand) < 0
        || mask_of(PyTuple_GET_ITEM(info, 10), &aside) < 0)
        return -1;

    memset(v, 0, RULES * sizeof(float));
    memcpy(v + RULES, rules, N_RULES * sizeof(float));
    if (put_seat(v + SEATS, PyTuple_GET_ITEM(seats, seat), target_score) < 0
        || put_seat(v + SEATS + SEAT_SIZE, PyTuple_GET_ITEM(seats, seat ^ 1), target_score) < 0)
        return -1;
    if (decision >= 0)
        v[DECISION + decision] = 1.0f;
    v[TO_ACT] = to_act == seat;
    v[SEAT] = (float)seat;
    v[FIRST_DRAWER] = first_drawer == seat;
    put_bits(v + HAND, *hand);
    if (looking != Py_None) {
        int c = card_of(looking);
        if (c < 0)
            return -1;
        v[LOOKING_AT + c] = 1.0f;
    }
    Py_ssize_t n = PyList_GET_SIZE(discards);
    for (Py_ssize_t t = 0; t < n; t++) {
        int c = card_of(PyList_GET_ITEM(discards, t));
        if (c < 0)
            return -1;
        v[OWN_DISCARDS + c] = (float)((double)(t + 1) / 13.0);
    }
    put_bits(v + PUT_ASIDE, aside);
    n = PyTuple_GET_SIZE(picked);
    for (Py_ssize_t i = 0; i < n; i++) {
        int c = card_of(PyTuple_GET_ITEM(picked, i));
        if (c < 0)
            return -1;
        v[PICKED + c] = 1.0f;
    }
    n = PyList_GET_SIZE(plays);
    Py_ssize_t n_won = PyList_GET_SIZE(winners);
    long leader = first_drawer ^ 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int c = card_of(PyList_GET_ITEM(plays, i));
        if (c < 0)
            return -1;
        Py_ssize_t t = i / 2;
        int second = (int)(i % 2);
        long player = leader ^ second;
        v[(player == seat ? PLAYED_BY_ME : PLAYED_BY_OPP) + c] = (float)((double)(i + 1) / 26.0);
        if (second && t < n_won) {
            leader = PyLong_AsLong(PyList_GET_ITEM(winners, t));
            if (leader == -1 && PyErr_Occurred())
                return -1;
        }
    }
    v[STOCK] = (float)((double)stock_size / 52.0);
    v[BROKEN] = (float)broken;
    v[HAND_NUMBER] = (float)((double)hand_number / (double)max_hands);
    return 0;
}

static int
to_act_of(PyObject *obj, long *to_act)
{
    *to_act = obj == Py_None ? -1 : PyLong_AsLong(obj);
    return *to_act == -1 && PyErr_Occurred() ? -1 : 0;
}

/* fill(out, info, seat, decision, to_act, picked, rules, max_hands, target_score) */
static PyObject *
fill(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "fill(out, info, seat, decision, to_act, picked, "
                                         "rules, max_hands, target_score)");
        return NULL;
    }
    long seat = PyLong_AsLong(args[2]);
    long decision = PyLong_AsLong(args[3]);
    long max_hands = PyLong_AsLong(args[7]);
    long target_score = PyLong_AsLong(args[8]);
    long to_act;
    if (PyErr_Occurred() || to_act_of(args[4], &to_act) < 0)
        return NULL;
    Py_buffer ob, rb;
    if (float_array(args[0], SIZE, "out", &ob, PyBUF_WRITABLE) < 0)
        return NULL;
    if (float_array(args[6], N_RULES, "rules", &rb, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&ob);
        return NULL;
    }
    unsigned long long hand;
    int rc = fill_core((float *)ob.buf, args[1], seat, decision, to_act, args[5],
                       (const float *)rb.buf, max_hands, target_score, &hand);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&ob);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* card_mask(out, mask): an int8 action mask of N_ACTIONS zeros but the cards of mask. */
static PyObject *
card_mask(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "card_mask(out, mask)");
        return NULL;
    }
    unsigned long long mask;
    if (mask_of(args[1], &mask) < 0)
        return NULL;
    Py_buffer ob;
    if (PyObject_GetBuffer(args[0], &ob, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (ob.len != N_ACTIONS || ob.itemsize != 1) {
        PyBuffer_Release(&ob);
        PyErr_Format(PyExc_ValueError, "out must be an int8 array of %d values", N_ACTIONS);
        return NULL;
    }
    signed char *m = (signed char *)ob.buf;
    memset(m, 0, N_ACTIONS);
    while (mask) {
        m[__builtin_ctzll(mask)] = 1;
        mask &= mask - 1;
    }
    PyBuffer_Release(&ob);
    Py_RETURN_NONE;
}

/* The decisions' indices (encoding.DECISIONS) and the action ids (arena.envs.actions). */
enum { D_DOUBLE_NIL, D_DRAW, D_EXCHANGE, D_BID, D_PLAY };
#define BID_BASE 52
#define MAX_BID 13
#define REJECT 66
#define KEEP 67
#define NO_DOUBLE_NIL 68
#define DOUBLE_NIL 69
#define EXCHANGE_DONE 70

/* The action mask of decision `phase` into m (N_ACTIONS, zeroed here): `cards` are the legal
 * plays (D_PLAY) or the hand (D_EXCHANGE), `low` the last card picked for the exchange, -1 if
 * none (R-3.4: the cards above it in ascending order, or the end). */
static void
fill_mask(signed char *m, long phase, unsigned long long cards, int low)
{
    memset(m, 0, N_ACTIONS);
    switch (phase) {
    case D_PLAY:
        put_bits_mask(m, cards);
        break;
    case D_EXCHANGE:
        put_bits_mask(m, low < 0 ? cards : cards & ~((2ULL << low) - 1));
        m[EXCHANGE_DONE] = 1;
        break;
    case D_DRAW:
        m[REJECT] = m[KEEP] = 1;
        break;
    case D_BID:
        memset(m + BID_BASE, 1, MAX_BID + 1);
        break;
    case D_DOUBLE_NIL:
        m[NO_DOUBLE_NIL] = m[DOUBLE_NIL] = 1;
        break;
    }
}

static PyObject *s_information_set, *s_legal_mask, *s_to_act, *s_decision;

/* The Match slots the observer reads, in this order (encoding.MATCH_SLOTS). */
enum {
    M_PHASE, M_TO_ACT, M_HAND_NUMBER, M_FIRST_DRAWER, M_HANDS, M_STOCK, M_POS, M_OWN_DISCARDS,
    M_PLAYS, M_WINNERS, M_BROKEN, M_ASIDE, M_LEGAL, M_SCORES, M_BAGS, M_BIDS, M_DN, M_WON,
    M_EXCHANGED, M_DRAW_CHOICES, N_SLOTS
};
#define P_OVER 5 /* the match's phase once it is over; phases 0-4 are the decisions' indices */
#define POOL 2 /* the loop's observation of the step before and of this one */

typedef struct {
    PyObject_HEAD
    PyObject *decisions[N_DECISIONS]; /* the Decision members, in encoding.DECISIONS order */
    float rules[N_RULES];
    long max_hands, target_score;
    /* observe_new's reading of a Match: the slots' descriptors (all NULL unless given) */
    PyObject *slots[N_SLOTS];
    int draws_public;
    /* observe_new's last observations (dicts), refilled when nothing but this pool holds them */
    PyObject *pool[POOL];
    int pool_next;
} Observer;

static int
Observer_init(Observer *self, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"decisions", "rules", "max_hands", "target_score", "slots",
                            "draws_public", NULL};
    PyObject *decisions, *rules, *slots = NULL;
    long max_hands, target_score;
    int draws_public = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!Oll|O!p:Observer", names, &PyTuple_Type,
                                     &decisions, &rules, &max_hands, &target_score,
                                     &PyTuple_Type, &slots, &draws_public))
        return -1;
    if (PyTuple_GET_SIZE(decisions) != N_DECISIONS || max_hands < 1 || target_score < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "Observer(decisions: the 5 decisions, rules, max_hands >= 1, "
                        "target_score >= 1)");
        return -1;
    }
    if (slots != NULL) {
        if (PyTuple_GET_SIZE(slots) != N_SLOTS) {
            PyErr_Format(PyExc_ValueError,
                         "Observer(..., slots: the %d Match slot descriptors, draws_public)",
                         N_SLOTS);
            return -1;
        }
        for (int i = 0; i < N_SLOTS; i++) {
            PyObject *d = PyTuple_GET_ITEM(slots, i);
            if (Py_TYPE(d)->tp_descr_get == NULL) {
                PyErr_SetString(PyExc_TypeError, "Observer: a slot is not a descriptor");
                return -1;
            }
            Py_INCREF(d);
            Py_XSETREF(self->slots[i], d);
        }
        self->draws_public = draws_public;
    }
    Py_buffer rb;
    if (float_array(rules, N_RULES, "rules", &rb, PyBUF_SIMPLE) < 0)
        return -1;
    memcpy(self->rules, rb.buf, sizeof(self->rules));
    PyBuffer_Release(&rb);
    for (int i = 0; i < N_DECISIONS; i++) {
        PyObject *d = PyTuple_GET_ITEM(decisions, i);
        Py_INCREF(d);
        Py_XSETREF(self->decisions[i], d);
    }
    self->max_hands = max_hands;
    self->target_score = target_score;
    return 0;
}

/* The action mask of the seat to act into m (N_ACTIONS), read through the match's attributes
 * (information_set's path). 0, or -1 with an exception. */
static int
put_mask(signed char *m, PyObject *match, long decision, unsigned long long hand,
         PyObject *picked)
{
    unsigned long long cards = hand;
    int low = -1;
    if (decision == D_PLAY) {
        PyObject *legal = PyObject_GetAttr(match, s_legal_mask);
        if (legal == NULL)
            return -1;
        int rc = mask_of(legal, &cards);
        Py_DECREF(legal);
        if (rc < 0)
            return -1;
    } else if (decision == D_EXCHANGE) {
        Py_ssize_t n = PyTuple_GET_SIZE(picked);
        if (n) {
            low = card_of(PyTuple_GET_ITEM(picked, n - 1));
            if (low < 0)
                return -1;
        }
    }
    fill_mask(m, decision, cards, low);
    return 0;
}

/* observe(match, seat, picked, out, mask) */
static PyObject *
Observer_observe(Observer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "observe(match, seat, picked, out, mask)");
        return NULL;
    }
    PyObject *match = args[0], *picked = args[2];
    long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (!PyTuple_Check(picked)) {
        PyErr_SetString(PyExc_TypeError, "picked must be a tuple of cards");
        return NULL;
    }
    PyObject *to_act_obj = PyObject_GetAttr(match, s_to_act);
    if (to_act_obj == NULL)
        return NULL;
    long to_act;
    int rc = to_act_of(to_act_obj, &to_act);
    Py_DECREF(to_act_obj);
    if (rc < 0)
        return NULL;
    PyObject *decision_obj = PyObject_GetAttr(match, s_decision);
    if (decision_obj == NULL)
        return NULL;
    long decision = -1;
    for (int i = 0; i < N_DECISIONS; i++)
        if (decision_obj == self->decisions[i])
            decision = i;
    Py_DECREF(decision_obj);
    PyObject *info = PyObject_CallMethodOneArg(match, s_information_set, args[1]);
    if (info == NULL)
        return NULL;
    int acting = to_act == seat;
    PyObject *own_picked;
    Py_buffer ob, mb;
    if (float_array(args[3], SIZE, "out", &ob, PyBUF_WRITABLE) < 0) {
        Py_DECREF(info);
        return NULL;
    }
    if (PyObject_GetBuffer(args[4], &mb, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&ob);
        Py_DECREF(info);
        return NULL;
    }
    unsigned long long hand = 0;
    rc = -1;
    if (mb.len != N_ACTIONS || mb.itemsize != 1) {
        PyErr_Format(PyExc_ValueError, "mask must be an int8 array of %d values", N_ACTIONS);
    } else {
        own_picked = acting ? picked : empty_tuple;
        rc = fill_core((float *)ob.buf, info, seat, decision, to_act, own_picked, self->rules,
                       self->max_hands, self->target_score, &hand);
        memset(mb.buf, 0, N_ACTIONS);
        if (rc == 0 && acting)
            rc = put_mask((signed char *)mb.buf, match, decision, hand, picked);
    }
    PyBuffer_Release(&mb);
    PyBuffer_Release(&ob);
    Py_DECREF(info);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* --- A match read through its slots: the environments' step ----------------------------------
 *
 * ``observe_new`` and ``engine_action`` read the engine's state as it is kept (the Match slots
 * of ``encoding.MATCH_SLOTS``, through their descriptors) rather than through
 * ``information_set`` and the decision properties: the same facts (tests hold the arrays equal
 * to ``encode_match_py``'s and decode them back to ``Match.observation``), without the Python
 * calls that built them, which cost several times the writing of the array. */

static int
has_slots(Observer *self)
{
    if (self->slots[0] == NULL) {
        PyErr_SetString(PyExc_TypeError, "this Observer was made without the match's slots");
        return 0;
    }
    return 1;
}

/* A slot's value, a new reference; NULL with an exception set. */
static inline PyObject *
slot(Observer *self, PyObject *match, int i)
{
    PyObject *d = self->slots[i];
    return Py_TYPE(d)->tp_descr_get(d, match, (PyObject *)Py_TYPE(match));
}

static int
slot_long(Observer *self, PyObject *match, int i, long *out)
{
    PyObject *v = slot(self, match, i);
    if (v == NULL)
        return -1;
    *out = v == Py_None ? -1 : PyLong_AsLong(v);
    Py_DECREF(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* A pair slot (a list of two per-seat values); borrowed items, list kept in *owner. */
static int
slot_pair(Observer *self, PyObject *match, int i, PyObject **owner)
{
    PyObject *v = slot(self, match, i);
    if (v == NULL)
        return -1;
    if (!PyList_Check(v) || PyList_GET_SIZE(v) != 2) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_TypeError, "a match's per-seat state must be a list of two");
        return -1;
    }
    *owner = v;
    return 0;
}

static inline long
item_long(PyObject *obj)
{
    return obj == Py_None ? -1 : PyLong_AsLong(obj);
}

/* A seat's block from the match's per-seat lists (encoding._encode_seat). */
static int
put_seat_raw(Observer *self, float *v, PyObject *const *pairs, int s)
{
    long score = item_long(PyList_GET_ITEM(pairs[0], s));
    long bags = item_long(PyList_GET_ITEM(pairs[1], s));
    long bid = item_long(PyList_GET_ITEM(pairs[2], s));
    int dn = PyObject_IsTrue(PyList_GET_ITEM(pairs[3], s));
    long tricks = item_long(PyList_GET_ITEM(pairs[4], s));
    long exchanged = item_long(PyList_GET_ITEM(pairs[5], s));
    if (PyErr_Occurred() || dn < 0)
        return -1;
    if (bid < -1 || bid > 13 || exchanged < -1 || exchanged > 3) {
        PyErr_SetString(PyExc_ValueError, "a seat's bid is 0-13 or None, its exchange 0-3");
        return -1;
    }
    v[S_SCORE] = (float)((double)score / (double)self->target_score);
    v[S_BAGS] = (float)((double)bags / 10.0);
    v[S_BID + bid + 1] = 1.0f;
    v[S_DN] = (float)dn;
    v[S_TRICKS] = (float)((double)tricks / 13.0);
    v[S_EXCHANGED + exchanged + 1] = 1.0f;
    if (self->draws_public) {
        PyObject *draws = PyList_GET_ITEM(pairs[6], s);
        if (!PyList_Check(draws) || PyList_GET_SIZE(draws) > 13) {
            PyErr_SetString(PyExc_ValueError, "a seat's draw choices are a list of 13 at most");
            return -1;
        }
        for (Py_ssize_t t = 0; t < PyList_GET_SIZE(draws); t++) {
            int kept = PyObject_IsTrue(PyList_GET_ITEM(draws, t));
            if (kept < 0)
                return -1;
            v[S_DRAWS + 2 * t] = 1.0f;
            v[S_DRAWS + 2 * t + 1] = (float)kept;
        }
    }
    return 0;
}

/* The observation of seat in match into v (SIZE floats) and, if seat is to act, its action
 * mask into m (N_ACTIONS, zeroed here). 0, or -1 with an exception set. */
static int
observe_raw(Observer *self, PyObject *match, long seat, PyObject *picked, float *v,
            signed char *m)
{
    long phase, to_act, hand_number, first_drawer, pos;
    if (slot_long(self, match, M_PHASE, &phase) < 0 || slot_long(self, match, M_TO_ACT, &to_act) < 0
        || slot_long(self, match, M_HAND_NUMBER, &hand_number) < 0
        || slot_long(self, match, M_FIRST_DRAWER, &first_drawer) < 0
        || slot_long(self, match, M_POS, &pos) < 0)
        return -1;
    if (phase < 0 || phase > P_OVER || pos < 0 || pos > 52) {
        PyErr_SetString(PyExc_ValueError, "not a match's state");
        return -1;
    }
    if (phase == P_OVER)
        to_act = -1;
    long decision = phase == P_OVER ? -1 : phase;
    int acting = to_act == seat;
    PyObject *pairs[7] = {NULL}; /* scores, bags, bids, dn, won, exchanged, draw choices */
    PyObject *hands = NULL, *aside = NULL, *discards = NULL, *plays = NULL, *winners = NULL,
             *stock = NULL, *broken_obj = NULL, *legal_obj = NULL;
    int rc = -1;
    static const int pair_slots[7] = {M_SCORES, M_BAGS, M_BIDS, M_DN, M_WON, M_EXCHANGED,
                                      M_DRAW_CHOICES};
    for (int i = 0; i < 7; i++)
        if (slot_pair(self, match, pair_slots[i], &pairs[i]) < 0)
            goto done;
    if (slot_pair(self, match, M_HANDS, &hands) < 0 || slot_pair(self, match, M_ASIDE, &aside) < 0
        || slot_pair(self, match, M_OWN_DISCARDS, &discards) < 0)
        goto done;
    plays = slot(self, match, M_PLAYS);
    winners = plays ? slot(self, match, M_WINNERS) : NULL;
    broken_obj = winners ? slot(self, match, M_BROKEN) : NULL;
    if (broken_obj == NULL)
        goto done;
    PyObject *own_discards = PyList_GET_ITEM(discards, seat);
    if (!PyList_Check(plays) || !PyList_Check(winners) || !PyList_Check(own_discards)) {
        PyErr_SetString(PyExc_TypeError, "a match's plays, winners and discards are lists");
        goto done;
    }
    unsigned long long hand, put_aside;
    int broken = PyObject_IsTrue(broken_obj);
    if (broken < 0 || mask_of(PyList_GET_ITEM(hands, seat), &hand) < 0
        || mask_of(PyList_GET_ITEM(aside, seat), &put_aside) < 0)
        goto done;

    memset(v, 0, RULES * sizeof(float));
    memcpy(v + RULES, self->rules, N_RULES * sizeof(float));
    if (put_seat_raw(self, v + SEATS, pairs, (int)seat) < 0
        || put_seat_raw(self, v + SEATS + SEAT_SIZE, pairs, (int)(seat ^ 1)) < 0)
        goto done;
    if (decision >= 0)
        v[DECISION + decision] = 1.0f;
    v[TO_ACT] = (float)acting;
    v[SEAT] = (float)seat;
    v[FIRST_DRAWER] = first_drawer == seat;
    put_bits(v + HAND, hand);
    if (phase == D_DRAW && acting) {
        stock = slot(self, match, M_STOCK);
        if (stock == NULL)
            goto done;
        if (!PyList_Check(stock) || PyList_GET_SIZE(stock) <= pos) {
            PyErr_SetString(PyExc_TypeError, "a match's stock is a list of its cards");
            goto done;
        }
        int c = card_of(PyList_GET_ITEM(stock, pos));
        if (c < 0)
            goto done;
        v[LOOKING_AT + c] = 1.0f;
    }
    Py_ssize_t n = PyList_GET_SIZE(own_discards);
    for (Py_ssize_t t = 0; t < n; t++) {
        int c = card_of(PyList_GET_ITEM(own_discards, t));
        if (c < 0)
            goto done;
        v[OWN_DISCARDS + c] = (float)((double)(t + 1) / 13.0);
    }
    put_bits(v + PUT_ASIDE, put_aside);
    Py_ssize_t n_picked = acting ? PyTuple_GET_SIZE(picked) : 0;
    int low = -1;
    for (Py_ssize_t i = 0; i < n_picked; i++) {
        int c = card_of(PyTuple_GET_ITEM(picked, i));
        if (c < 0)
            goto done;
        v[PICKED + c] = 1.0f;
        low = c;
    }
    n = PyList_GET_SIZE(plays);
    Py_ssize_t n_won = PyList_GET_SIZE(winners);
    long leader = first_drawer ^ 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int c = card_of(PyList_GET_ITEM(plays, i));
        if (c < 0)
            goto done;
        Py_ssize_t t = i / 2;
        int second = (int)(i % 2);
        long player = leader ^ second;
        v[(player == seat ? PLAYED_BY_ME : PLAYED_BY_OPP) + c] = (float)((double)(i + 1) / 26.0);
        if (second && t < n_won) {
            leader = PyLong_AsLong(PyList_GET_ITEM(winners, t));
            if (leader == -1 && PyErr_Occurred())
                goto done;
        }
    }
    v[STOCK] = (float)((double)(52 - pos - (phase == D_DRAW)) / 52.0);
    v[BROKEN] = (float)broken;
    v[HAND_NUMBER] = (float)((double)hand_number / (double)self->max_hands);

    unsigned long long cards = hand;
    if (acting && phase == D_PLAY) {
        legal_obj = slot(self, match, M_LEGAL);
        if (legal_obj == NULL || mask_of(legal_obj, &cards) < 0)
            goto done;
    }
    if (acting)
        fill_mask(m, phase, cards, low);
    else
        memset(m, 0, N_ACTIONS);
    rc = 0;
done:
    for (int i = 0; i < 7; i++)
        Py_XDECREF(pairs[i]);
    Py_XDECREF(hands);
    Py_XDECREF(aside);
    Py_XDECREF(discards);
    Py_XDECREF(plays);
    Py_XDECREF(winners);
    Py_XDECREF(stock);
    Py_XDECREF(broken_obj);
    Py_XDECREF(legal_obj);
    return rc;
}

static PyObject *s_observation_key, *s_action_mask_key;

/* An array of the pool's that no one but its dict holds and that is still as made (one
 * dimension of n values of type, C-contiguous, writeable, owning its data, no view or weak
 * reference on it): refilling it cannot be seen by anyone. */
static int
unseen_array(PyObject *a, npy_intp n, int type)
{
    if (a == NULL || !PyArray_CheckExact(a) || Py_REFCNT(a) != 1)
        return 0;
    PyArrayObject *arr = (PyArrayObject *)a;
    return PyArray_NDIM(arr) == 1 && PyArray_DIM(arr, 0) == n && PyArray_TYPE(arr) == type
           && PyArray_ISNBO(PyArray_DESCR(arr)->byteorder)
           && PyArray_CHKFLAGS(arr, NPY_ARRAY_CARRAY | NPY_ARRAY_OWNDATA)
           && PyArray_BASE(arr) == NULL && ((PyArrayObject_fields *)arr)->weakreflist == NULL;
}

/* A dict of the pool's that no one else holds, with its two arrays as made: its arrays, or
 * NULL. */
static PyObject *
unseen_observation(PyObject *d, PyObject **mask)
{
    if (d == NULL || Py_REFCNT(d) != 1 || PyDict_GET_SIZE(d) != 2)
        return NULL;
    PyObject *obs = PyDict_GetItem(d, s_observation_key);
    *mask = PyDict_GetItem(d, s_action_mask_key);
    if (!unseen_array(obs, SIZE, NPY_FLOAT32) || !unseen_array(*mask, N_ACTIONS, NPY_INT8))
        return NULL;
    return obs;
}

/* observe_new(match, seat, picked) -> {"observation": float32[SIZE], "action_mask": int8[71]}
 *
 * A new observation as far as anyone can tell: a dict of the last POOL this observer made is
 * refilled when nothing but the pool holds it or its arrays (the loop's observation of two
 * steps before, dropped), else a new one is made and takes a place in the pool. Allocating
 * and freeing the dict and its two arrays cost more than writing them. */
static PyObject *
Observer_observe_new(Observer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observe_new(match, seat, picked)");
        return NULL;
    }
    if (!has_slots(self))
        return NULL;
    long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (seat != 0 && seat != 1) {
        PyErr_Format(PyExc_ValueError, "seat must be 0 or 1, got %ld", seat);
        return NULL;
    }
    if (!PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "picked must be a tuple of cards");
        return NULL;
    }
    PyObject *out = NULL, *obs = NULL, *mask = NULL;
    for (int i = 0; i < POOL; i++) {
        obs = unseen_observation(self->pool[i], &mask);
        if (obs != NULL) {
            out = self->pool[i];
            break;
        }
    }
    if (out != NULL) {
        Py_INCREF(out);
        if (observe_raw(self, args[0], seat, args[2], (float *)PyArray_DATA((PyArrayObject *)obs),
                        (signed char *)PyArray_DATA((PyArrayObject *)mask)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        return out;
    }
    npy_intp obs_size = SIZE, mask_size = N_ACTIONS;
    obs = PyArray_SimpleNew(1, &obs_size, NPY_FLOAT32);
    if (obs == NULL)
        return NULL;
    mask = PyArray_SimpleNew(1, &mask_size, NPY_INT8);
    out = mask ? PyDict_New() : NULL;
    if (out == NULL
        || observe_raw(self, args[0], seat, args[2], (float *)PyArray_DATA((PyArrayObject *)obs),
                       (signed char *)PyArray_DATA((PyArrayObject *)mask)) < 0
        || PyDict_SetItem(out, s_observation_key, obs) < 0
        || PyDict_SetItem(out, s_action_mask_key, mask) < 0) {
        Py_XDECREF(out);
        out = NULL;
    }
    Py_DECREF(obs);
    Py_XDECREF(mask);
    if (out != NULL) {
        Py_INCREF(out);
        Py_XSETREF(self->pool[self->pool_next], out);
        self->pool_next = (self->pool_next + 1) % POOL;
    }
    return out;
}

/* The engine action of a legal play, draw, bid or Double Nil action id (a new reference: an
 * int; True/False for a draw or a Double Nil answer), or None for anything else (an exchange's
 * card, an illegal id, not an int): actions.quick_engine_action. NULL with an exception. */
static PyObject *
engine_action_of(Observer *self, PyObject *match, PyObject *action)
{
    if (!PyLong_CheckExact(action))
        Py_RETURN_NONE; /* the Python path takes anything else, numpy ints included */
    int overflow;
    long a = PyLong_AsLongAndOverflow(action, &overflow);
    if (overflow || (a == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    long phase;
    if (slot_long(self, match, M_PHASE, &phase) < 0)
        return NULL;
    switch (phase) {
    case D_PLAY: {
        if (a < 0 || a >= 52)
            Py_RETURN_NONE;
        unsigned long long legal;
        PyObject *legal_obj = slot(self, match, M_LEGAL);
        if (legal_obj == NULL)
            return NULL;
        int rc = mask_of(legal_obj, &legal);
        Py_DECREF(legal_obj);
        if (rc < 0)
            return NULL;
        if (legal >> a & 1) {
            Py_INCREF(action);
            return action;
        }
        Py_RETURN_NONE;
    }
    case D_DRAW:
        if (a == KEEP)
            Py_RETURN_TRUE;
        if (a == REJECT)
            Py_RETURN_FALSE;
        Py_RETURN_NONE;
    case D_BID:
        if (a >= BID_BASE && a <= BID_BASE + MAX_BID)
            return PyLong_FromLong(a - BID_BASE);
        Py_RETURN_NONE;
    case D_DOUBLE_NIL:
        if (a == DOUBLE_NIL)
            Py_RETURN_TRUE;
        if (a == NO_DOUBLE_NIL)
            Py_RETURN_FALSE;
        Py_RETURN_NONE;
    default:
        Py_RETURN_NONE;
    }
}

/* engine_action(match, action) */
static PyObject *
Observer_engine_action(Observer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "engine_action(match, action)");
        return NULL;
    }
    if (!has_slots(self))
        return NULL;
    return engine_action_of(self, args[0], args[1]);
}

/* legal_ids(match, picked): actions.legal_ids, the legal action ids of the seat to act in
 * ascending order ([] once the match is over). */
static PyObject *
Observer_legal_ids(Observer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "legal_ids(match, picked)");
        return NULL;
    }
    if (!has_slots(self))
        return NULL;
    PyObject *match = args[0], *picked = args[1];
    if (!PyTuple_Check(picked)) {
        PyErr_SetString(PyExc_TypeError, "picked must be a tuple of cards");
        return NULL;
    }
    long phase;
    if (slot_long(self, match, M_PHASE, &phase) < 0)
        return NULL;
    unsigned long long cards = 0;
    int low = -1;
    if (phase == D_PLAY || phase == D_EXCHANGE) {
        PyObject *owner = NULL, *obj;
        if (phase == D_PLAY) {
            obj = owner = slot(self, match, M_LEGAL);
        } else {
            long to_act;
            if (slot_long(self, match, M_TO_ACT, &to_act) < 0
                || slot_pair(self, match, M_HANDS, &owner) < 0)
                return NULL;
            obj = PyList_GET_ITEM(owner, to_act & 1);
        }
        if (owner == NULL)
            return NULL;
        int rc = mask_of(obj, &cards);
        Py_DECREF(owner);
        if (rc < 0)
            return NULL;
        Py_ssize_t n = PyTuple_GET_SIZE(picked);
        if (phase == D_EXCHANGE && n) {
            low = card_of(PyTuple_GET_ITEM(picked, n - 1));
            if (low < 0)
                return NULL;
        }
    }
    signed char m[N_ACTIONS];
    fill_mask(m, phase, cards, low);
    int n = 0;
    for (int a = 0; a < N_ACTIONS; a++)
        n += m[a];
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (int a = 0, i = 0; a < N_ACTIONS; a++) {
        if (!m[a])
            continue;
        PyObject *id = PyLong_FromLong(a);
        if (id == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i++, id);
    }
    return out;
}

static PyObject *s_apply;

/* apply(match, action): a legal play, draw, bid or Double Nil action id applied to the match
 * (match.apply of its engine action), and the seat to act next, None once the match is over;
 * NotImplemented, the match unchanged, for any other action (engine_action's None). */
static PyObject *
Observer_apply(Observer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "apply(match, action)");
        return NULL;
    }
    if (!has_slots(self))
        return NULL;
    PyObject *engine = engine_action_of(self, args[0], args[1]);
    if (engine == NULL)
        return NULL;
    if (engine == Py_None) {
        Py_DECREF(engine);
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *done = PyObject_CallMethodOneArg(args[0], s_apply, engine);
    Py_DECREF(engine);
    if (done == NULL)
        return NULL;
    Py_DECREF(done);
    long phase;
    if (slot_long(self, args[0], M_PHASE, &phase) < 0)
        return NULL;
    if (phase == P_OVER)
        Py_RETURN_NONE;
    return slot(self, args[0], M_TO_ACT);
}

static int
Observer_traverse(Observer *self, visitproc visit, void *arg)
{
    for (int i = 0; i < N_DECISIONS; i++)
        Py_VISIT(self->decisions[i]);
    for (int i = 0; i < N_SLOTS; i++)
        Py_VISIT(self->slots[i]);
    for (int i = 0; i < POOL; i++)
        Py_VISIT(self->pool[i]);
    return 0;
}

static int
Observer_clear(Observer *self)
{
    for (int i = 0; i < N_DECISIONS; i++)
        Py_CLEAR(self->decisions[i]);
    for (int i = 0; i < N_SLOTS; i++)
        Py_CLEAR(self->slots[i]);
    for (int i = 0; i < POOL; i++)
        Py_CLEAR(self->pool[i]);
    return 0;
}

static void
Observer_dealloc(Observer *self)
{
    PyObject_GC_UnTrack(self);
    Observer_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Observer_methods[] = {
    {"observe", (PyCFunction)(void (*)(void))Observer_observe, METH_FASTCALL,
     "observe(match, seat, picked, out, mask): the observation array of seat into out (float32, "
     "SIZE) and its action mask into mask (int8, 71; all zero unless seat is to act), picked "
     "the cards of an exchange under way (ignored unless seat is to act)."},
    {"observe_new", (PyCFunction)(void (*)(void))Observer_observe_new, METH_FASTCALL,
     "observe_new(match, seat, picked): observe's array and mask as a new dict "
     "{'observation': ..., 'action_mask': ...}, read from the match's slots (an Observer "
     "made with them); one of its last two is refilled when nothing else holds it."},
    {"engine_action", (PyCFunction)(void (*)(void))Observer_engine_action, METH_FASTCALL,
     "engine_action(match, action): the engine action of a legal play, draw, bid or Double "
     "Nil action id, else None (actions.quick_engine_action)."},
    {"legal_ids", (PyCFunction)(void (*)(void))Observer_legal_ids, METH_FASTCALL,
     "legal_ids(match, picked): the legal action ids of the seat to act, ascending, picked "
     "the cards of its exchange under way (actions.legal_ids)."},
    {"apply", (PyCFunction)(void (*)(void))Observer_apply, METH_FASTCALL,
     "apply(match, action): a legal play, draw, bid or Double Nil action id applied to the "
     "match, and the seat to act next (None once the match is over); NotImplemented, the "
     "match unchanged, for any other action."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ObserverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.envs._obs.Observer",
    .tp_basicsize = sizeof(Observer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Observations and action masks of the matches of one rule set.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Observer_init,
    .tp_dealloc = (destructor)Observer_dealloc,
    .tp_traverse = (traverseproc)Observer_traverse,
    .tp_clear = (inquiry)Observer_clear,
    .tp_methods = Observer_methods,
};

static PyMethodDef methods[] = {
    {"fill", (PyCFunction)(void (*)(void))fill, METH_FASTCALL,
     "fill(out, info, seat, decision, to_act, picked, rules, max_hands, target_score): write "
     "the observation array of seat into out (as encoding.encode_match_py), info being "
     "Match.information_set(seat) and rules the rule set's five encoded floats."},
    {"card_mask", (PyCFunction)(void (*)(void))card_mask, METH_FASTCALL,
     "card_mask(out, mask): out (int8, 71) set to the action mask of the cards of mask."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_obs",
    "The environments' observation encoder in C (arena.envs.encoding has the reference).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__obs(void)
{
#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        return NULL
    INTERN(s_score, "score");
    INTERN(s_bags, "bags");
    INTERN(s_bid, "bid");
    INTERN(s_double_nil, "double_nil");
    INTERN(s_tricks_won, "tricks_won");
    INTERN(s_cards_exchanged, "cards_exchanged");
    INTERN(s_draw_choices, "draw_choices");
    INTERN(s_information_set, "information_set");
    INTERN(s_legal_mask, "legal_mask");
    INTERN(s_to_act, "to_act");
    INTERN(s_decision, "decision");
    INTERN(s_observation_key, "observation");
    INTERN(s_apply, "apply");
    INTERN(s_action_mask_key, "action_mask");
#undef INTERN
    if ((empty_tuple = PyTuple_New(0)) == NULL)
        return NULL;
    import_array();
    if (PyType_Ready(&ObserverType) < 0)
        return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL)
        return NULL;
    PyObject *layout = Py_BuildValue("(iiiiiiiiiiiiiiiiiiiiiiiiiii)", DECISION, TO_ACT, SEAT,
                                     FIRST_DRAWER, HAND, LOOKING_AT, OWN_DISCARDS, PUT_ASIDE,
                                     PICKED, PLAYED_BY_ME, PLAYED_BY_OPP, STOCK, BROKEN,
                                     HAND_NUMBER, SEATS, SEAT_SIZE, RULES, SIZE, N_DECISIONS,
                                     N_ACTIONS, S_SCORE, S_BAGS, S_BID, S_DN, S_TRICKS,
                                     S_EXCHANGED, S_DRAWS);
    if (layout == NULL || PyModule_AddObject(mod, "LAYOUT", layout) < 0) {
        Py_XDECREF(layout);
        Py_DECREF(mod);
        return NULL;
    }
    Py_INCREF(&ObserverType);
    if (PyModule_AddObject(mod, "Observer", (PyObject *)&ObserverType) < 0) {
        Py_DECREF(&ObserverType);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
