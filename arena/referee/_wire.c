/* The referee's request encoder in C: the same bytes as ``arena.referee.wire``'s
 * ``PythonRequestEncoder``, written into one buffer.
 *
 * The Python encoder is the reference (and what runs where this module could not be built);
 * tests check that both give the same bytes over whole matches of every rule set. This one
 * exists for the referee's hot path: a request is made once a decision, after a round trip
 * that has left the interpreter's caches cold, and there each Python step costs several times
 * its warm cost. Here a request is one call: the engine's ``information_set`` read once, every
 * field written straight into a buffer.
 *
 * Wire format (protobuf): a field is its tag byte, (field number << 3) | wire type (0 varint,
 * 2 length-delimited), then its value; a nested message is its length and bytes. The tags are
 * those of proto/spades/v1/bot.proto, named at each write.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define INFO_MAX 4096 /* an information set is some 600 bytes at most (52 cards, 13 tricks) */
#define SEAT_MAX 96   /* a seat's entry: 7 fields, 13 draw choices */
#define CLOCK_MAX 32

typedef struct {
    PyObject_HEAD
    PyObject *match_id; /* bytes: the request's match_id field (1) */
    PyObject *rules;    /* bytes: InformationSet.rules (2) */
    PyObject *play, *bid, *exchange; /* the Decision members */
    PyObject *bid_tail, *exchange_tail; /* bytes: BidRequest.legal_bids, ExchangeRequest.max_cards */
    PyObject *seats; /* the engine's last seat pair, whose entries seat_bytes holds */
    unsigned char seat_bytes[2][SEAT_MAX];
    Py_ssize_t seat_len[2];
    long long move, bank; /* the clock of clock_bytes (-1: none yet) */
    unsigned char clock_bytes[CLOCK_MAX];
    Py_ssize_t clock_len;
} Encoder;

typedef struct {
    unsigned char *p, *end;
} Out;

static PyObject *s_information_set, *s_legal_mask, *s_move_time_ms, *s_time_bank_ms;
static PyObject *s_score, *s_bags, *s_bid, *s_double_nil, *s_tricks_won, *s_cards_exchanged,
    *s_draw_choices;

static int
overflow(void)
{
    PyErr_SetString(PyExc_ValueError, "a request larger than an information set can be");
    return -1;
}

#define NEED(o, n) \
    do { \
        if ((o)->end - (o)->p < (Py_ssize_t)(n)) \
            return overflow(); \
    } while (0)

static inline int
put_varint(Out *o, uint64_t v)
{
    NEED(o, 10);
    while (v > 0x7F) {
        *o->p++ = (unsigned char)(v & 0x7F) | 0x80;
        v >>= 7;
    }
    *o->p++ = (unsigned char)v;
    return 0;
}

static inline int
put2(Out *o, unsigned char a, unsigned char b)
{
    NEED(o, 2);
    o->p[0] = a;
    o->p[1] = b;
    o->p += 2;
    return 0;
}

static inline int
put_bytes(Out *o, const void *bytes, Py_ssize_t n)
{
    NEED(o, n);
    memcpy(o->p, bytes, n);
    o->p += n;
    return 0;
}

/* A varint field: its tag, then the value. */
static inline int
put_tv(Out *o, unsigned char tag, uint64_t v)
{
    NEED(o, 11);
    *o->p++ = tag;
    return put_varint(o, v);
}

/* One card as an entry of a repeated Card field: tag, length 4, Card.suit (1) = suit + 1,
 * Card.rank (2) = rank + 2 (cards are 0-51, 13 to a suit, clubs first). */
static inline int
put_card(Out *o, unsigned char tag, long card)
{
    if (card < 0 || card > 51) {
        PyErr_Format(PyExc_ValueError, "not a card: %ld", card);
        return -1;
    }
    NEED(o, 6);
    o->p[0] = tag;
    o->p[1] = 4;
    o->p[2] = 0x08;
    o->p[3] = (unsigned char)(card / 13 + 1);
    o->p[4] = 0x10;
    o->p[5] = (unsigned char)(card % 13 + 2);
    o->p += 6;
    return 0;
}

/* The cards of a mask, lowest first. */
static int
put_mask(Out *o, unsigned char tag, uint64_t mask)
{
    if (mask >> 52) {
        PyErr_SetString(PyExc_ValueError, "a card mask with bits above the 52 cards");
        return -1;
    }
    while (mask) {
        if (put_card(o, tag, __builtin_ctzll(mask)) < 0)
            return -1;
        mask &= mask - 1;
    }
    return 0;
}

/* An int (or bool) only: no object whose conversion would run Python code while the engine's
 * lists are being read. */
static int
not_int(PyObject *v, const char *what)
{
    if (PyLong_Check(v))
        return 0;
    PyErr_Format(PyExc_TypeError, "expected %s, got %.80s", what, Py_TYPE(v)->tp_name);
    return -1;
}

static int
as_long(PyObject *v, long *out)
{
    if (not_int(v, "an int") < 0)
        return -1;
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *out = x;
    return 0;
}

static int
as_mask(PyObject *v, uint64_t *out)
{
    if (not_int(v, "a card mask") < 0)
        return -1;
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = x;
    return 0;
}

/* A list or tuple's items (the engine's own lists): borrowed. */
static int
items(PyObject *v, PyObject ***out, Py_ssize_t *n)
{
    if (PyList_Check(v)) {
        *out = ((PyListObject *)v)->ob_item;
        *n = PyList_GET_SIZE(v);
        return 0;
    }
    if (PyTuple_Check(v)) {
        *out = ((PyTupleObject *)v)->ob_item;
        *n = PyTuple_GET_SIZE(v);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected a list or tuple, got %.80s", Py_TYPE(v)->tp_name);
    return -1;
}

/* An attribute as a long; *present is 0 when it is None (and then *out is 0). */
static int
attr_long(PyObject *obj, PyObject *name, long *out, int *present)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    int rc = 0;
    if (v == Py_None) {
        *out = 0;
        if (present != NULL)
            *present = 0;
        else {
            PyErr_Format(PyExc_TypeError, "%.80s.%U is None", Py_TYPE(obj)->tp_name, name);
            rc = -1;
        }
    } else {
        if (present != NULL)
            *present = 1;
        rc = as_long(v, out);
    }
    Py_DECREF(v);
    return rc;
}

/* SeatView.draw_choices = 7, packed DrawChoice: KEEP 1, REJECT 2 (none: nothing written). */
static int
put_choices(Out *o, PyObject *choices)
{
    PyObject **it;
    Py_ssize_t n;
    if (items(choices, &it, &n) < 0)
        return -1;
    if (n == 0)
        return 0;
    NEED(o, n + 2);
    *o->p++ = 0x3A;
    *o->p++ = (unsigned char)n; /* at most 13 (and below 90: the entry's room) */
    for (Py_ssize_t i = 0; i < n; i++) {
        int keep = PyObject_IsTrue(it[i]);
        if (keep < 0)
            return -1;
        *o->p++ = keep ? 1 : 2;
    }
    return 0;
}

/* InformationSet.seats (9): one seat's public facts (SeatView). */
static int
seat_entry(PyObject *view, unsigned char *buf, Py_ssize_t *len)
{
    unsigned char body[SEAT_MAX];
    Out o = {body, body + SEAT_MAX - 4};
    long score, bags, bid, tricks, exchanged;
    int has_bid, has_exchanged;
    if (attr_long(view, s_score, &score, NULL) < 0 || attr_long(view, s_bags, &bags, NULL) < 0
        || attr_long(view, s_bid, &bid, &has_bid) < 0
        || attr_long(view, s_tricks_won, &tricks, NULL) < 0
        || attr_long(view, s_cards_exchanged, &exchanged, &has_exchanged) < 0)
        return -1;
    PyObject *dn = PyObject_GetAttr(view, s_double_nil);
    if (dn == NULL)
        return -1;
    int double_nil = PyObject_IsTrue(dn);
    Py_DECREF(dn);
    if (double_nil < 0)
        return -1;
    /* SeatView: score = 1 (an int32: a negative one takes ten bytes), bags = 2, bid = 3,
     * double_nil = 4, tricks_won = 5, cards_exchanged = 6 */
    if ((score && put_tv(&o, 0x08, (uint64_t)(int64_t)score) < 0)
        || (bags && put_tv(&o, 0x10, (uint64_t)bags) < 0)
        || (has_bid && put_tv(&o, 0x18, (uint64_t)bid) < 0)
        || (double_nil && put2(&o, 0x20, 0x01) < 0)
        || (tricks && put_tv(&o, 0x28, (uint64_t)tricks) < 0)
        || (has_exchanged && put_tv(&o, 0x30, (uint64_t)exchanged) < 0))
        return -1;
    PyObject *choices = PyObject_GetAttr(view, s_draw_choices);
    if (choices == NULL)
        return -1;
    int rc = choices == Py_None ? 0 : put_choices(&o, choices);
    Py_DECREF(choices);
    if (rc < 0)
        return -1;
    Py_ssize_t n = o.p - body;
    buf[0] = 0x4A;
    buf[1] = (unsigned char)n; /* below 128: one byte */
    memcpy(buf + 2, body, n);
    *len = n + 2;
    return 0;
}

/* The request's clock field (3): Clock.move_time_ms = 1, time_bank_ms = 2. */
static int
clock_field(Encoder *self, long long move, long long bank)
{
    unsigned char body[24];
    Out o = {body, body + sizeof body};
    if ((move && put_tv(&o, 0x08, (uint64_t)move) < 0)
        || (bank && put_tv(&o, 0x10, (uint64_t)bank) < 0))
        return -1;
    Py_ssize_t n = o.p - body;
    self->clock_bytes[0] = 0x1A;
    self->clock_bytes[1] = (unsigned char)n;
    memcpy(self->clock_bytes + 2, body, n);
    self->clock_len = n + 2;
    self->move = move;
    self->bank = bank;
    return 0;
}

static PyObject *
Encoder_encode(Encoder *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "encode(m, seat, decision, clock)");
        return NULL;
    }
    if (self->rules == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder.__init__ was not called");
        return NULL;
    }
    PyObject *m = args[0], *seat_obj = args[1], *decision = args[2], *clock = args[3];
    if (decision == Py_None || seat_obj == Py_None) {
        PyErr_SetString(PyExc_ValueError, "the match is over: there is no decision to ask");
        return NULL;
    }
    long seat;
    if (as_long(seat_obj, &seat) < 0)
        return NULL;
    PyObject *info = PyObject_CallMethodOneArg(m, s_information_set, seat_obj);
    if (info == NULL)
        return NULL;
    PyObject *result = NULL, *legal_obj = NULL;
    if (!PyTuple_Check(info) || PyTuple_GET_SIZE(info) != 11) {
        PyErr_SetString(PyExc_TypeError, "information_set is not an 11-tuple");
        goto done;
    }
    PyObject **f = ((PyTupleObject *)info)->ob_item;
    long number, fd, stock, looking = -1;
    uint64_t hand, aside;
    if (as_long(f[0], &number) < 0 || as_long(f[1], &fd) < 0 || as_mask(f[2], &hand) < 0
        || (f[3] != Py_None && as_long(f[3], &looking) < 0) || as_long(f[5], &stock) < 0
        || as_mask(f[10], &aside) < 0)
        goto done;
    if (fd != 0 && fd != 1) {
        PyErr_Format(PyExc_ValueError, "not a seat: %ld", fd);
        goto done;
    }
    int broken = PyObject_IsTrue(f[9]);
    if (broken < 0)
        goto done;

    unsigned char buf[INFO_MAX];
    Out o = {buf, buf + INFO_MAX};
    /* InformationSet: seat = 1 (0, the default, is omitted), rules = 2, hand_number = 3,
     * first_drawer = 4, hand = 5 */
    if (seat && put2(&o, 0x08, 0x01) < 0)
        goto done;
    if (put_bytes(&o, PyBytes_AS_STRING(self->rules), PyBytes_GET_SIZE(self->rules)) < 0)
        goto done;
    if (put_tv(&o, 0x18, (uint64_t)number) < 0)
        goto done;
    if (fd && put2(&o, 0x20, 0x01) < 0)
        goto done;
    if (put_mask(&o, 0x2A, hand) < 0)
        goto done;
    if (looking >= 0 && put_card(&o, 0x32, looking) < 0) /* looking_at = 6 */
        goto done;
    PyObject **it;
    Py_ssize_t n;
    if (items(f[4], &it, &n) < 0) /* own_discards = 7 */
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        long card;
        if (as_long(it[i], &card) < 0 || put_card(&o, 0x3A, card) < 0)
            goto done;
    }
    if (stock && put_tv(&o, 0x40, (uint64_t)stock) < 0)
        goto done; /* stock_size = 8 */
    PyObject *seats = f[6]; /* seats = 9: the pair, re-encoded when the engine's pair changes */
    if (seats != self->seats) {
        if (!PyTuple_Check(seats) || PyTuple_GET_SIZE(seats) != 2) {
            PyErr_SetString(PyExc_TypeError, "the seats are not a pair");
            goto done;
        }
        Py_CLEAR(self->seats); /* nothing kept until both are made */
        for (int s = 0; s < 2; s++)
            if (seat_entry(PyTuple_GET_ITEM(seats, s), self->seat_bytes[s], &self->seat_len[s]) < 0)
                goto done;
        Py_INCREF(seats);
        self->seats = seats;
    }
    for (int s = 0; s < 2; s++)
        if (put_bytes(&o, self->seat_bytes[s], self->seat_len[s]) < 0)
            goto done;
    PyObject **plays, **winners;
    Py_ssize_t n_plays, done_tricks;
    if (items(f[7], &plays, &n_plays) < 0 || items(f[8], &winners, &done_tricks) < 0)
        goto done;
    if (n_plays != 2 * done_tricks && n_plays != 2 * done_tricks + 1) {
        PyErr_Format(PyExc_ValueError, "%zd cards played in %zd tricks", n_plays, done_tricks);
        goto done;
    }
    /* tricks = 10: Trick.leader = 1 (seat 0 omitted), cards = 2, winner = 3 */
    long leader = fd ^ 1;
    for (Py_ssize_t t = 0; t < done_tricks; t++) {
        long a, b, winner;
        if (as_long(plays[2 * t], &a) < 0 || as_long(plays[2 * t + 1], &b) < 0
            || as_long(winners[t], &winner) < 0)
            goto done;
        if (winner != 0 && winner != 1) {
            PyErr_Format(PyExc_ValueError, "not a seat: %ld", winner);
            goto done;
        }
        if (put2(&o, 0x52, leader ? 16 : 14) < 0 || (leader && put2(&o, 0x08, 0x01) < 0)
            || put_card(&o, 0x12, a) < 0 || put_card(&o, 0x12, b) < 0
            || put2(&o, 0x18, (unsigned char)winner) < 0)
            goto done;
        leader = winner;
    }
    if (n_plays > 2 * done_tricks) { /* the open trick: its leader's card */
        long lead;
        if (as_long(plays[n_plays - 1], &lead) < 0)
            goto done;
        if (put2(&o, 0x52, leader ? 8 : 6) < 0 || (leader && put2(&o, 0x08, 0x01) < 0)
            || put_card(&o, 0x12, lead) < 0)
            goto done;
    }
    if (broken && put2(&o, 0x58, 0x01) < 0) /* spades_broken = 11 */
        goto done;
    if (put_mask(&o, 0x62, aside) < 0) /* own_put_aside = 12 */
        goto done;

    /* the legal options */
    unsigned char tail[6 * 13 + 1];
    Out t = {tail, tail + sizeof tail};
    const char *tail_bytes = NULL;
    Py_ssize_t tail_len = 0;
    if (decision == self->play) { /* PlayRequest.legal_cards = 4 */
        legal_obj = PyObject_GetAttr(m, s_legal_mask);
        uint64_t legal;
        if (legal_obj == NULL || as_mask(legal_obj, &legal) < 0)
            goto done;
        if (legal & ~hand) {
            PyErr_SetString(PyExc_ValueError, "a legal card that is not in the hand");
            goto done;
        }
        if (put_mask(&t, 0x22, legal) < 0)
            goto done;
        tail_bytes = (const char *)tail;
        tail_len = t.p - tail;
    } else if (decision == self->bid) {
        tail_bytes = PyBytes_AS_STRING(self->bid_tail);
        tail_len = PyBytes_GET_SIZE(self->bid_tail);
    } else if (decision == self->exchange) {
        tail_bytes = PyBytes_AS_STRING(self->exchange_tail);
        tail_len = PyBytes_GET_SIZE(self->exchange_tail);
    }

    /* the clock: kept while its move time and bank are unchanged */
    long move, bank;
    if (attr_long(clock, s_move_time_ms, &move, NULL) < 0
        || attr_long(clock, s_time_bank_ms, &bank, NULL) < 0)
        goto done;
    if ((move != self->move || bank != self->bank) && clock_field(self, move, bank) < 0)
        goto done;

    /* match_id = 1, info = 2 (its length a varint), clock = 3, the options */
    Py_ssize_t info_len = o.p - buf;
    unsigned char head[11];
    Out h = {head + 1, head + sizeof head};
    head[0] = 0x12;
    put_varint(&h, (uint64_t)info_len);
    Py_ssize_t head_len = h.p - head;
    Py_ssize_t id_len = PyBytes_GET_SIZE(self->match_id);
    result = PyBytes_FromStringAndSize(
        NULL, id_len + head_len + info_len + self->clock_len + tail_len);
    if (result == NULL)
        goto done;
    char *w = PyBytes_AS_STRING(result);
    memcpy(w, PyBytes_AS_STRING(self->match_id), id_len);
    w += id_len;
    memcpy(w, head, head_len);
    w += head_len;
    memcpy(w, buf, info_len);
    w += info_len;
    memcpy(w, self->clock_bytes, self->clock_len);
    w += self->clock_len;
    if (tail_len)
        memcpy(w, tail_bytes, tail_len);
done:
    Py_XDECREF(legal_obj);
    Py_DECREF(info);
    return result;
}

static int
Encoder_init(Encoder *self, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"match_id", "rules", "play", "bid", "exchange", "bid_tail",
                            "exchange_tail", NULL};
    PyObject *match_id, *rules, *play, *bid, *exchange, *bid_tail, *exchange_tail;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "SSOOOSS:Encoder", names, &match_id, &rules,
                                     &play, &bid, &exchange, &bid_tail, &exchange_tail))
        return -1;
    if (PyBytes_GET_SIZE(rules) > 256 || PyBytes_GET_SIZE(bid_tail) > 64
        || PyBytes_GET_SIZE(exchange_tail) > 64) {
        PyErr_SetString(PyExc_ValueError, "rules or options longer than a request's");
        return -1;
    }
#define SET(field, value) \
    do { \
        Py_INCREF(value); \
        Py_XSETREF(self->field, value); \
    } while (0)
    SET(match_id, match_id);
    SET(rules, rules);
    SET(play, play);
    SET(bid, bid);
    SET(exchange, exchange);
    SET(bid_tail, bid_tail);
    SET(exchange_tail, exchange_tail);
#undef SET
    Py_CLEAR(self->seats);
    self->move = self->bank = -1;
    self->clock_len = 0;
    return 0;
}

static int
Encoder_traverse(Encoder *self, visitproc visit, void *arg)
{
    Py_VISIT(self->play);
    Py_VISIT(self->bid);
    Py_VISIT(self->exchange);
    Py_VISIT(self->seats);
    return 0;
}

static int
Encoder_clear(Encoder *self)
{
    Py_CLEAR(self->match_id);
    Py_CLEAR(self->rules);
    Py_CLEAR(self->play);
    Py_CLEAR(self->bid);
    Py_CLEAR(self->exchange);
    Py_CLEAR(self->bid_tail);
    Py_CLEAR(self->exchange_tail);
    Py_CLEAR(self->seats);
    return 0;
}

static void
Encoder_dealloc(Encoder *self)
{
    PyObject_GC_UnTrack(self);
    Encoder_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))Encoder_encode, METH_FASTCALL,
     "encode(m, seat, decision, clock) -> bytes: the serialized request of m's decision to "
     "the seat to act (as PythonRequestEncoder.encode)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.referee._wire.Encoder",
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Encodes the decision requests of one match. Not shared between threads.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_traverse = (traverseproc)Encoder_traverse,
    .tp_clear = (inquiry)Encoder_clear,
    .tp_methods = Encoder_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_wire",
    "The referee's request encoder in C (arena.referee.wire has the reference).", -1, NULL,
};

PyMODINIT_FUNC
PyInit__wire(void)
{
#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        return NULL
    INTERN(s_information_set, "information_set");
    INTERN(s_legal_mask, "legal_mask");
    INTERN(s_move_time_ms, "move_time_ms");
    INTERN(s_time_bank_ms, "time_bank_ms");
    INTERN(s_score, "score");
    INTERN(s_bags, "bags");
    INTERN(s_bid, "bid");
    INTERN(s_double_nil, "double_nil");
    INTERN(s_tricks_won, "tricks_won");
    INTERN(s_cards_exchanged, "cards_exchanged");
    INTERN(s_draw_choices, "draw_choices");
#undef INTERN
    if (PyType_Ready(&EncoderType) < 0)
        return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL)
        return NULL;
    Py_INCREF(&EncoderType);
    if (PyModule_AddObject(mod, "Encoder", (PyObject *)&EncoderType) < 0) {
        Py_DECREF(&EncoderType);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
