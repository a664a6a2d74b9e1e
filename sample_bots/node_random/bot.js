#!/usr/bin/env node
// A Spades Arena sample bot in JavaScript: uniformly random legal choices.
//
// It loads the arena's own proto file at run time (no generated code), serves
// spades.v1.BotService (the unary RPCs and the optional PlaySession stream, which the referee
// prefers because server reflection lists it), the standard gRPC health checking service and
// reflection, and listens on the address in $ARENA_BOT_ADDRESS (or --listen ADDR):
// "unix:/path/to.sock" or "host:port".
//
// Environment:
//   ARENA_BOT_ADDRESS  the address to listen on (set by the arena's runtime)
//   ARENA_BOT_PROTO    path to spades/v1/bot.proto (default: ../../proto/spades/v1/bot.proto
//                      relative to this file)
//   ARENA_BOT_SEED     an integer seed, for repeatable choices

"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const { HealthImplementation } = require("grpc-health-check");
const { ReflectionService } = require("@grpc/reflection");

const SERVICE_NAME = "spades.v1.BotService";
const PROTO_PATH =
  process.env.ARENA_BOT_PROTO ||
  path.resolve(__dirname, "..", "..", "proto", "spades", "v1", "bot.proto");

// A seeded generator (mulberry32) when ARENA_BOT_SEED is set, so tests can repeat a match.
function makeRandom(seedText) {
  if (seedText === undefined || seedText === "") {
    return Math.random;
  }
  let state = Number.parseInt(seedText, 10) >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = makeRandom(process.env.ARENA_BOT_SEED);

function pick(items) {
  return items[Math.floor(random() * items.length)];
}

function listenAddress() {
  const i = process.argv.indexOf("--listen");
  if (i >= 0 && process.argv[i + 1]) {
    return process.argv[i + 1];
  }
  return process.env.ARENA_BOT_ADDRESS || "";
}

// Decisions. Requests arrive with enums as their names (enums: String) and ints as numbers.
const handlers = {
  StartMatch(call, callback) {
    callback(null, {});
  },
  DecideDoubleNil(call, callback) {
    // Double Nil rarely: 2 % of hands.
    const choice = random() < 0.02 ? "DOUBLE_NIL_CHOICE_DECLARE" : "DOUBLE_NIL_CHOICE_DECLINE";
    callback(null, { choice });
  },
  Draw(call, callback) {
    // Keep or reject the card looked at, with even odds.
    callback(null, { choice: random() < 0.5 ? "DRAW_CHOICE_KEEP" : "DRAW_CHOICE_REJECT" });
  },
  Exchange(call, callback) {
    // Put aside 0..max_cards distinct cards of the hand.
    const hand = call.request.info.hand.slice();
    const count = Math.floor(random() * (Math.min(call.request.max_cards, hand.length) + 1));
    const cards = [];
    for (let k = 0; k < count; k++) {
      const j = Math.floor(random() * hand.length);
      cards.push(hand.splice(j, 1)[0]);
    }
    callback(null, { cards });
  },
  Bid(call, callback) {
    callback(null, { tricks: pick(call.request.legal_bids) });
  },
  Play(call, callback) {
    callback(null, { card: pick(call.request.legal_cards) });
  },
  EndHand(call, callback) {
    callback(null, {});
  },
  EndMatch(call, callback) {
    callback(null, {});
  },
};

// PlaySession: each request of a match on one stream, answered in order by the unary handlers.
// The answer carries the request's seq back; a handler's error becomes a SessionError with the
// status the unary RPC would have failed with.
const SESSION_RPCS = {
  start_match: "StartMatch",
  decide_double_nil: "DecideDoubleNil",
  draw: "Draw",
  exchange: "Exchange",
  bid: "Bid",
  play: "Play",
  end_hand: "EndHand",
  end_match: "EndMatch",
};

handlers.PlaySession = function PlaySession(call) {
  call.on("data", (req) => {
    const kind = req.request;
    const rpc = SESSION_RPCS[kind];
    const reply = (err, answer) => {
      if (err) {
        const code = Number.isInteger(err.code) ? err.code : grpc.status.INTERNAL;
        call.write({ seq: req.seq, error: { code, message: String(err.message || err) } });
      } else {
        call.write({ seq: req.seq, [kind]: answer });
      }
    };
    if (rpc === undefined) {
      reply({ code: grpc.status.INVALID_ARGUMENT, message: "a PlaySession request with no request" });
      return;
    }
    try {
      handlers[rpc]({ request: req[kind] }, reply);
    } catch (err) {
      reply(err);
    }
  });
  call.on("end", () => call.end());
  call.on("error", () => {});
};

function main() {
  const address = listenAddress();
  if (!address) {
    console.error("node_random: error: no address: set ARENA_BOT_ADDRESS or pass --listen ADDR");
    process.exit(2);
  }
  const definition = protoLoader.loadSync(PROTO_PATH, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const proto = grpc.loadPackageDefinition(definition);
  const server = new grpc.Server();
  server.addService(proto.spades.v1.BotService.service, handlers);
  const health = new HealthImplementation({ "": "NOT_SERVING", [SERVICE_NAME]: "NOT_SERVING" });
  health.addToServer(server);
  new ReflectionService(definition).addToServer(server);

  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      console.error(`node_random: error: cannot listen on ${address}: ${err.message}`);
      process.exit(2);
    }
    health.setStatus("", "SERVING");
    health.setStatus(SERVICE_NAME, "SERVING");
    console.error(`node_random listening on ${address}`);
  });

  let stopping = false;
  function shutdown(signal) {
    if (stopping) {
      return;
    }
    stopping = true;
    console.error(`node_random: ${signal}, shutting down`);
    health.setStatus("", "NOT_SERVING");
    health.setStatus(SERVICE_NAME, "NOT_SERVING");
    const force = setTimeout(() => server.forceShutdown(), 2000);
    force.unref();
    server.tryShutdown(() => process.exit(0));
  }
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main();
