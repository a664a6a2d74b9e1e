// A Spades Arena sample bot in C++ (gRPC C++, Debian's libgrpc++-dev): plain legal moves.
//
// It plays the lowest legal card, bids a simple count of its sure-looking tricks, keeps spades
// and high cards in the draw, and never declares Double Nil. It serves spades.v1.BotService and
// the standard gRPC health checking service (grpc.health.v1.Health, SERVING for "" and for
// "spades.v1.BotService"), and listens on the address in $ARENA_BOT_ADDRESS or --listen ADDR:
// "unix:/path/to.sock" or "host:port", both as gRPC C++ takes them.
//
// Build: `make` in this directory (or `make cpp-bot` at the top); see docs/writing-a-bot.md.

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "spades/v1/bot.grpc.pb.h"

namespace {

constexpr char kServiceName[] = "spades.v1.BotService";

using grpc::ServerContext;
using grpc::Status;
namespace pb = spades::v1;

// Spades are trump: any spade outranks any other card for our purposes.
bool Lower(const pb::Card& a, const pb::Card& b) {
  const bool a_spade = a.suit() == pb::SUIT_SPADES;
  const bool b_spade = b.suit() == pb::SUIT_SPADES;
  if (a_spade != b_spade) return b_spade;
  if (a.rank() != b.rank()) return a.rank() < b.rank();
  return a.suit() < b.suit();
}

// A count bid: every ace and king, and every spade from the queen up, is worth one trick;
// never Nil (a Nil bid would be a present 0, R-3.1), so at least 1.
int CountBid(const pb::InformationSet& info) {
  int tricks = 0;
  for (const pb::Card& card : info.hand()) {
    if (card.rank() >= pb::RANK_KING ||
        (card.suit() == pb::SUIT_SPADES && card.rank() >= pb::RANK_QUEEN)) {
      ++tricks;
    }
  }
  return std::clamp(tricks, 1, 13);
}

class LowestBot final : public pb::BotService::Service {
  Status StartMatch(ServerContext*, const pb::StartMatchRequest*,
                    pb::StartMatchResponse*) override {
    return Status::OK;
  }

  Status DecideDoubleNil(ServerContext*, const pb::DecideDoubleNilRequest*,
                         pb::DecideDoubleNilResponse* response) override {
    response->set_choice(pb::DOUBLE_NIL_CHOICE_DECLINE);
    return Status::OK;
  }

  Status Draw(ServerContext*, const pb::DrawRequest* request, pb::DrawResponse* response) override {
    const pb::Card& card = request->info().looking_at();
    const bool keep = card.suit() == pb::SUIT_SPADES || card.rank() >= pb::RANK_QUEEN;
    response->set_choice(keep ? pb::DRAW_CHOICE_KEEP : pb::DRAW_CHOICE_REJECT);
    return Status::OK;
  }

  Status Exchange(ServerContext*, const pb::ExchangeRequest*, pb::ExchangeResponse*) override {
    return Status::OK;  // never asked (no Double Nil); putting nothing aside is legal
  }

  Status Bid(ServerContext*, const pb::BidRequest* request, pb::BidResponse* response) override {
    response->set_tricks(CountBid(request->info()));
    return Status::OK;
  }

  Status Play(ServerContext*, const pb::PlayRequest* request, pb::PlayResponse* response) override {
    const auto& legal = request->legal_cards();
    if (legal.empty()) {
      return Status(grpc::StatusCode::INVALID_ARGUMENT, "no legal card in the request");
    }
    *response->mutable_card() = *std::min_element(legal.begin(), legal.end(), Lower);
    return Status::OK;
  }

  Status EndHand(ServerContext*, const pb::EndHandRequest*, pb::EndHandResponse*) override {
    return Status::OK;
  }

  Status EndMatch(ServerContext*, const pb::EndMatchRequest*, pb::EndMatchResponse*) override {
    return Status::OK;
  }
};

std::string ListenAddress(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--listen") == 0) return argv[i + 1];
  }
  const char* env = std::getenv("ARENA_BOT_ADDRESS");
  return env != nullptr ? env : "";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string address = ListenAddress(argc, argv);
  if (address.empty()) {
    std::fprintf(stderr, "cpp_lowest: error: no address: set ARENA_BOT_ADDRESS or pass --listen ADDR\n");
    return 2;
  }

  // SIGTERM and SIGINT are taken by a thread of their own (sigwait), never by a handler: a
  // graceful Shutdown() cannot be called from a signal handler. Block them before any thread.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  grpc::EnableDefaultHealthCheckService(true);
  LowestBot service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (address.rfind("unix:", 0) != 0 && port == 0)) {
    std::fprintf(stderr, "cpp_lowest: error: cannot listen on %s\n", address.c_str());
    return 2;
  }
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  health->SetServingStatus(kServiceName, true);  // "" is SERVING by default
  std::fprintf(stderr, "cpp_lowest listening on %s\n", address.c_str());

  std::thread stopper([&server, &stop_signals, health] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    std::fprintf(stderr, "cpp_lowest: %s, shutting down\n", strsignal(signal_number));
    health->SetServingStatus(false);
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  });
  server->Wait();
  stopper.join();
  if (address.rfind("unix:", 0) == 0) {
    unlink(address.c_str() + std::strlen("unix:"));  // unix:/abs/path, as the arena gives it
  }
  return 0;
}
