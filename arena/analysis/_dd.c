/* Double-dummy search in C: the same search as arena/analysis/search.py (read it first; it is
 * the reference the tests compare this with), some fifty times faster.
 *
 * Alpha-beta with seat 0 maximising payoff[tricks seat 0 ends with]; a transposition table at
 * the start of each trick (both hands, leader, spades broken, seat 0's tricks), holding a lower
 * and an upper bound and the best card; equivalent cards merged (a run of one hand's cards of a
 * suit with no live card of the other hand, nor the card led, between them); bounds from the
 * payoff over the tricks still open; the table's best card first, winners before losers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define TABLE_BITS 18
#define SPADES_FIRST 39
#define NON_SPADES ((UINT64_C(1) << SPADES_FIRST) - 1)
#define ALL_CARDS ((UINT64_C(1) << 52) - 1)
#define SUIT(c) ((c) / 13)
#define INF (1 << 30)
#define VALUE_LIMIT (1 << 28)

static const uint64_t suit_mask[4] = {
    UINT64_C(0x1FFF), UINT64_C(0x1FFF) << 13, UINT64_C(0x1FFF) << 26, UINT64_C(0x1FFF) << 39};

typedef struct {
    uint64_t h0, h1;
    uint32_t meta; /* 0: empty; else 1 + mover + 2 * broken + 4 * won0 */
    int32_t lo, hi;
    int8_t best;
} Entry;

typedef struct {
    PyObject_HEAD
    int payoff[14];
    Entry *table;
    unsigned long long nodes;
    unsigned long long limit; /* stop once nodes reach this (0: never) */
    double deadline;          /* or once CLOCK_MONOTONIC reaches this (0: never) */
    int stopped;
} SearchObject;

static inline int beats(int lead, int card) {
    if (SUIT(card) == SUIT(lead)) return card > lead;
    return card >= SPADES_FIRST;
}

static inline int ctz(uint64_t x) { return __builtin_ctzll(x); }
static inline int top(uint64_t x) { return 63 - __builtin_clzll(x); }

static inline uint64_t legal_of(uint64_t hand, int lead, int broken) {
    if (lead >= 0) {
        uint64_t same = hand & suit_mask[SUIT(lead)];
        return same ? same : hand;
    }
    if (broken) return hand;
    uint64_t plain = hand & NON_SPADES;
    return plain ? plain : hand;
}

/* One card of each run of equivalent cards of `cards`, ordered: `first` (the table's best)
 * first; when following, winners (cheapest first, same suit before trumps) then losers (lowest
 * rank first); when leading, the highest runs first. Returns how many. */
static int ordered_moves(uint64_t cards, uint64_t other, int lead, int first, int *moves) {
    int low[13], key[13], n = 0;
    uint64_t stops = other | (lead >= 0 ? UINT64_C(1) << lead : 0);
    for (int s = 0; s < 4; s++) {
        uint64_t mine = cards & suit_mask[s];
        if (!mine) continue;
        uint64_t live = (mine | stops) & suit_mask[s];
        uint64_t run = 0;
        int run_low = -1;
        while (live) {
            uint64_t bit = live & (~live + 1);
            live ^= bit;
            if (mine & bit) {
                if (!run) run_low = ctz(bit);
                run |= bit;
            } else if (run) {
                low[n] = run_low;
                key[n] = lead < 0 ? -((top(run) % 13) * 64 + run_low)
                         : beats(lead, run_low)
                             ? (SUIT(run_low) != SUIT(lead)) * 64 + run_low
                             : 1000 + run_low % 13;
                n++;
                run = 0;
            }
        }
        if (run) {
            low[n] = run_low;
            key[n] = lead < 0 ? -((top(run) % 13) * 64 + run_low)
                     : beats(lead, run_low) ? (SUIT(run_low) != SUIT(lead)) * 64 + run_low
                                            : 1000 + run_low % 13;
            n++;
        }
    }
    for (int i = 1; i < n; i++) { /* insertion sort by key */
        int k = key[i], c = low[i], j = i - 1;
        while (j >= 0 && key[j] > k) {
            key[j + 1] = key[j];
            low[j + 1] = low[j];
            j--;
        }
        key[j + 1] = k;
        low[j + 1] = c;
    }
    int m = 0;
    if (first >= 0) {
        for (int i = 0; i < n; i++)
            if (low[i] == first) {
                moves[m++] = first;
                break;
            }
    }
    for (int i = 0; i < n; i++)
        if (low[i] != first || m == 0 || moves[0] != first) moves[m++] = low[i];
    return m;
}

static int search(SearchObject *s, uint64_t h0, uint64_t h1, int mover, int lead, int won0,
                  int broken, int alpha, int beta);

/* Whether the monotonic clock (Python's time.monotonic and time.perf_counter on Linux) has
 * reached `deadline` seconds; 0 is no deadline. Read every 1024 positions: some 20 ns each. */
static inline int past(double deadline) {
    if (deadline <= 0) return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec >= deadline;
}

static inline int child(SearchObject *s, uint64_t h0, uint64_t h1, int mover, int lead, int won0,
                        int broken, int card, int alpha, int beta) {
    uint64_t bit = UINT64_C(1) << card;
    if (mover == 0) h0 ^= bit;
    else h1 ^= bit;
    broken = broken || card >= SPADES_FIRST; /* */
    if (lead < 0) return search(s, h0, h1, mover ^ 1, card, won0, broken, alpha, beta);
    int winner = beats(lead, card) ? mover : mover ^ 1;
    return search(s, h0, h1, winner, -1, won0 + (winner == 0), broken, alpha, beta);
}

static inline Entry *slot_of(SearchObject *s, uint64_t h0, uint64_t h1, uint32_t meta) {
    uint64_t x = h0 * UINT64_C(0x9E3779B97F4A7C15) ^ h1 * UINT64_C(0xC2B2AE3D27D4EB4F) ^
                 (uint64_t)meta * UINT64_C(0x165667B19E3779F9);
    x ^= x >> 31;
    return &s->table[x & ((UINT64_C(1) << TABLE_BITS) - 1)];
}

static int search(SearchObject *s, uint64_t h0, uint64_t h1, int mover, int lead, int won0,
                  int broken, int alpha, int beta) {
    if ((++s->nodes >= s->limit && s->limit) || ((s->nodes & 1023) == 0 && past(s->deadline))) {
        s->stopped = 1; /* every caller up the stack returns at once and stores nothing */
        return 0;
    }
    int n = __builtin_popcountll(h0 | h1);
    int left = lead >= 0 ? (n + 1) / 2 : n / 2;
    int lo = s->payoff[won0], hi = lo;
    for (int i = 1; i <= left; i++) {
        int v = s->payoff[won0 + i];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    if (lo == hi || lo >= beta) return lo;
    if (hi <= alpha) return hi;
    if (alpha < lo) alpha = lo;
    if (beta > hi) beta = hi;
    Entry *e = NULL;
    uint32_t meta = 0;
    int first = -1;
    if (lead < 0) {
        meta = 1 + (uint32_t)mover + 2 * (uint32_t)broken + 4 * (uint32_t)won0;
        e = slot_of(s, h0, h1, meta);
        if (e->meta == meta && e->h0 == h0 && e->h1 == h1) {
            int elo = e->lo, ehi = e->hi;
            first = e->best;
            if (elo >= beta || elo == ehi) return elo;
            if (ehi <= alpha) return ehi;
            if (elo > lo) lo = elo;
            if (ehi < hi) hi = ehi;
            if (alpha < elo) alpha = elo;
            if (beta > ehi) beta = ehi;
        }
    }
    uint64_t hand = mover == 0 ? h0 : h1, other = mover == 0 ? h1 : h0;
    int moves[13];
    int count = ordered_moves(legal_of(hand, lead, broken), other, lead, first, moves);
    int a0 = alpha, b0 = beta, best, best_card = -1;
    if (mover == 0) {
        best = -INF;
        for (int i = 0; i < count; i++) {
            int v = child(s, h0, h1, 0, lead, won0, broken, moves[i], alpha, beta);
            if (s->stopped) return 0;
            if (v > best) {
                best = v;
                best_card = moves[i];
                if (best > alpha) {
                    alpha = best;
                    if (alpha >= beta) break;
                }
            }
        }
    } else {
        best = INF;
        for (int i = 0; i < count; i++) {
            int v = child(s, h0, h1, 1, lead, won0, broken, moves[i], alpha, beta);
            if (s->stopped) return 0;
            if (v < best) {
                best = v;
                best_card = moves[i];
                if (best < beta) {
                    beta = best;
                    if (alpha >= beta) break;
                }
            }
        }
    }
    if (e != NULL) {
        e->h0 = h0;
        e->h1 = h1;
        e->meta = meta;
        e->best = (int8_t)best_card;
        if (best <= a0) {
            e->lo = lo;
            e->hi = best;
        } else if (best >= b0) {
            e->lo = best;
            e->hi = hi;
        } else {
            e->lo = e->hi = best;
        }
    }
    return best;
}

/* ---- the Python face ---------------------------------------------------------------------- */

static int Search_init(SearchObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"payoff", NULL};
    PyObject *payoff;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &payoff)) return -1;
    PyObject *seq = PySequence_Fast(payoff, "a payoff is a sequence of 14 ints");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 14) {
        PyErr_Format(PyExc_ValueError, "a payoff has 14 entries (0-13 tricks), got %zd",
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < 14; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "payoff entries are ints, got %s",
                         Py_TYPE(item)->tp_name);
            Py_DECREF(seq);
            return -1;
        }
        long v = PyLong_AsLong(item);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v <= -VALUE_LIMIT || v >= VALUE_LIMIT) {
            PyErr_Format(PyExc_ValueError, "payoff entry %ld is out of range", v);
            Py_DECREF(seq);
            return -1;
        }
        self->payoff[i] = (int)v;
    }
    Py_DECREF(seq);
    if (self->table == NULL) {
        self->table = PyMem_Calloc((size_t)1 << TABLE_BITS, sizeof(Entry));
        if (self->table == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    } else {
        memset(self->table, 0, ((size_t)1 << TABLE_BITS) * sizeof(Entry));
    }
    self->nodes = 0;
    self->limit = 0;
    self->deadline = 0;
    self->stopped = 0;
    return 0;
}

static void Search_dealloc(SearchObject *self) {
    PyMem_Free(self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Reads and checks (h0, h1, to_act, lead, won0, broken): a position the search can walk. */
static int parse_position(SearchObject *self, PyObject *args, uint64_t *h0, uint64_t *h1,
                          int *to_act, int *lead, int *won0, int *broken) {
    PyObject *o0, *o1, *limit = Py_None, *deadline = Py_None;
    if (self->table == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Search.__init__ was not called");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "O!O!iiip|OO", &PyLong_Type, &o0, &PyLong_Type, &o1, to_act,
                          lead, won0, broken, &limit, &deadline))
        return -1;
    self->limit = 0;
    self->deadline = 0;
    self->stopped = 0;
    if (deadline != Py_None) {
        double d = PyFloat_AsDouble(deadline);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        if (!(d > 0)) {
            PyErr_SetString(PyExc_ValueError, "deadline is None or a time.monotonic() > 0");
            return -1;
        }
        self->deadline = d;
    }
    if (limit != Py_None) {
        long long n = PyLong_AsLongLong(limit);
        if (n == -1 && PyErr_Occurred()) return -1;
        if (n < 1) {
            PyErr_SetString(PyExc_ValueError, "limit is None or a number of positions >= 1");
            return -1;
        }
        self->limit = self->nodes + (unsigned long long)n;
    }
    *h0 = PyLong_AsUnsignedLongLong(o0);
    if (*h0 == (uint64_t)-1 && PyErr_Occurred()) return -1;
    *h1 = PyLong_AsUnsignedLongLong(o1);
    if (*h1 == (uint64_t)-1 && PyErr_Occurred()) return -1;
    if ((*h0 | *h1) & ~ALL_CARDS || *h0 & *h1) {
        PyErr_SetString(PyExc_ValueError, "hands must be disjoint masks of cards 0-51");
        return -1;
    }
    if (*to_act != 0 && *to_act != 1) {
        PyErr_SetString(PyExc_ValueError, "to_act is seat 0 or 1");
        return -1;
    }
    if (*lead < -1 || *lead > 51 || (*lead >= 0 && ((*h0 | *h1) >> *lead & 1))) {
        PyErr_SetString(PyExc_ValueError, "lead is -1 or a card (0-51) in neither hand");
        return -1;
    }
    int n0 = __builtin_popcountll(*h0), n1 = __builtin_popcountll(*h1);
    int mine = *to_act == 0 ? n0 : n1, theirs = *to_act == 0 ? n1 : n0;
    int left = *lead >= 0 ? mine : n0;
    if (mine != theirs + (*lead >= 0) || *won0 < 0 || *won0 + left > 13) {
        PyErr_SetString(PyExc_ValueError,
                        "the hands, the card led and seat 0's tricks do not make a play position");
        return -1;
    }
    return 0;
}

static PyObject *Search_value(SearchObject *self, PyObject *args) {
    uint64_t h0, h1;
    int to_act, lead, won0, broken;
    if (parse_position(self, args, &h0, &h1, &to_act, &lead, &won0, &broken) < 0) return NULL;
    int v;
    Py_BEGIN_ALLOW_THREADS /* the search touches no Python object: other threads run meanwhile */
    v = search(self, h0, h1, to_act, lead, won0, broken, -INF, INF);
    Py_END_ALLOW_THREADS
    if (self->stopped) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

static PyObject *Search_card_values(SearchObject *self, PyObject *args) {
    uint64_t h0, h1;
    int to_act, lead, won0, broken;
    if (parse_position(self, args, &h0, &h1, &to_act, &lead, &won0, &broken) < 0) return NULL;
    if ((to_act == 0 ? h0 : h1) == 0) {
        PyErr_SetString(PyExc_ValueError, "the hand is over: no card to play");
        return NULL;
    }
    uint64_t hand = to_act == 0 ? h0 : h1, other = to_act == 0 ? h1 : h0;
    uint64_t legal = legal_of(hand, lead, broken);
    int moves[13];
    int count = ordered_moves(legal, other, lead, -1, moves);
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    uint64_t stops = other | (lead >= 0 ? UINT64_C(1) << lead : 0);
    for (int i = 0; i < count; i++) {
        int card = moves[i];
        int v;
        Py_BEGIN_ALLOW_THREADS
        v = child(self, h0, h1, to_act, lead, won0, broken, card, -INF, INF);
        Py_END_ALLOW_THREADS
        if (self->stopped) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        PyObject *value = PyLong_FromLong(v);
        if (value == NULL) goto fail;
        /* the run of `card`: it and the legal cards above it up to a stop */
        for (int c = card; c < 13 * (SUIT(card) + 1); c++) {
            uint64_t bit = UINT64_C(1) << c;
            if (stops & bit) break;
            if (!(legal & bit)) continue;
            PyObject *key = PyLong_FromLong(c);
            if (key == NULL || PyDict_SetItem(out, key, value) < 0) {
                Py_XDECREF(key);
                Py_DECREF(value);
                goto fail;
            }
            Py_DECREF(key);
        }
        Py_DECREF(value);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *Search_get_nodes(SearchObject *self, void *closure) {
    return PyLong_FromUnsignedLongLong(self->nodes);
}

static PyObject *Search_get_payoff(SearchObject *self, void *closure) {
    PyObject *t = PyTuple_New(14);
    if (t == NULL) return NULL;
    for (int i = 0; i < 14; i++) {
        PyObject *v = PyLong_FromLong(self->payoff[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyMethodDef Search_methods[] = {
    {"value", (PyCFunction)Search_value, METH_VARARGS,
     "value(h0, h1, to_act, lead, won0, broken, limit=None, deadline=None): the position's "
     "value for seat 0, or None once the search has walked limit positions or time.monotonic() "
     "has reached deadline."},
    {"card_values", (PyCFunction)Search_card_values, METH_VARARGS,
     "card_values(h0, h1, to_act, lead, won0, broken, limit=None, deadline=None): {card: value "
     "for seat 0} of every legal card, or None once the search has walked limit positions or "
     "time.monotonic() has reached deadline."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Search_getset[] = {
    {"nodes", (getter)Search_get_nodes, NULL, "positions searched so far", NULL},
    {"payoff", (getter)Search_get_payoff, NULL, "the payoff by seat 0's final tricks", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.analysis._dd.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Alpha-beta double-dummy search of one hand under a payoff (seat 0 maximises). "
              "The search runs without the GIL: use one Search from one thread at a time.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dd",
                                    "Double-dummy search in C (see search.py).", -1, NULL};

PyMODINIT_FUNC PyInit__dd(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
