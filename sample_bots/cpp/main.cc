// pepper-cpp-bot, the C++ starter kit: a Pepper Arena bot that speaks the pepper.v1 protocol over gRPC
// (docs/protocol.md) and plays every ruleset with the small heuristic in strategy.cc.
//
// It is configured like every launched bot (docs/arena.md): PEPPER_REFEREE (host:port, default
// 127.0.0.1:50051), its token (read from the pipe PEPPER_TOKEN_FD names, else PEPPER_TOKEN), PEPPER_BOT_NAME, and optionally PEPPER_MAX_BATCH and PEPPER_TLS_CA (a PEM CA
// certificate: connect with TLS). Exit status: 0 after SIGTERM or SIGINT, or once a draining referee ends the
// stream; 2 when the configuration is wrong or the referee refuses the bot. A stream that drops otherwise is
// reconnected, backing off from 0.2 s up to 10 s.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "pepper/v1/bot.grpc.pb.h"
#include "strategy.h"

#ifndef PEPPER_PROTOCOL_VERSION
#define PEPPER_PROTOCOL_VERSION "1.6"  // the Makefile sets it from proto/VERSION
#endif

namespace pb = pepper::v1;

namespace {

// Keepalive as agreed with the referee (docs/protocol.md, "Keepalive"): a ping every 30 s, never under 20 s.
constexpr int kKeepaliveTimeMs = 30000;
constexpr int kKeepaliveTimeoutMs = 10000;
// A Batch of many requests is larger than gRPC's default 4 MiB receive limit allows.
constexpr int kMaxReceiveBytes = 64 << 20;

std::string name = "cpp-starter";

void Log(const std::string& line) { std::cerr << name << " " << line << std::endl; }

std::string EnvOr(const char* var, const std::string& fallback) {
  const char* v = std::getenv(var);
  return v && *v ? v : fallback;
}

// The bot's token: read to its end from the pipe whose descriptor PEPPER_TOKEN_FD names (how the arena hands it
// over: another process of the same user can read the environment in /proc, not a pipe already read), else
// PEPPER_TOKEN. Both are then removed from the environment, so that programs the bot starts do not inherit them.
std::string LaunchToken() {
  std::string token = EnvOr("PEPPER_TOKEN", "");
  const std::string fd = EnvOr("PEPPER_TOKEN_FD", "");
  unsetenv("PEPPER_TOKEN");
  unsetenv("PEPPER_TOKEN_FD");
  if (fd.empty()) return token;
  char* end = nullptr;
  const long n = std::strtol(fd.c_str(), &end, 10);
  if (*end != '\0' || n < 0) throw std::runtime_error("PEPPER_TOKEN_FD=" + fd + " is not a file descriptor");
  token.clear();
  char buf[256];
  ssize_t got;
  while ((got = read(static_cast<int>(n), buf, sizeof buf)) > 0) token.append(buf, static_cast<size_t>(got));
  if (got < 0) throw std::runtime_error("cannot read the token from PEPPER_TOKEN_FD=" + fd);
  close(static_cast<int>(n));
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  return token;
}

// SIGTERM / SIGINT: a thread waits for them (blocked everywhere else) and cancels the open stream.
std::mutex mu;
std::condition_variable stopped_cv;
bool stopped = false;
grpc::ClientContext* open_call = nullptr;

void WaitForSignal(sigset_t signals) {
  int sig = 0;
  sigwait(&signals, &sig);
  std::lock_guard<std::mutex> lock(mu);
  stopped = true;
  if (open_call) open_call->TryCancel();
  stopped_cv.notify_all();
}

bool Stopped() {
  std::lock_guard<std::mutex> lock(mu);
  return stopped;
}

// The strategy's answer; should it throw or answer something not legal, the first legal action instead, marked
// as a fallback so that the referee counts it (SeatResult.fallbacks).
pb::Answer AnswerFor(const pb::DecisionRequest& req) {
  pb::Answer a;
  a.set_request_id(req.request_id());
  a.set_game_id(req.game_id());
  if (req.legal_actions().empty()) return a;
  std::string action, detail;
  pb::StrategyFallback kind = pb::STRATEGY_FALLBACK_UNSPECIFIED;
  try {
    action = starter::Decide(req);
    bool legal = false;
    for (const std::string& l : req.legal_actions()) legal = legal || l == action;
    if (!legal) kind = pb::STRATEGY_FALLBACK_ILLEGAL, detail = "Decide() returned \"" + action + "\", not legal";
  } catch (const std::exception& e) {
    kind = pb::STRATEGY_FALLBACK_RAISED, detail = std::string("Decide() threw: ") + e.what();
  }
  if (kind != pb::STRATEGY_FALLBACK_UNSPECIFIED) {
    action = req.legal_actions(0);
    Log("game " + req.game_id() + " request " + std::to_string(req.request_id()) + ": " + detail);
    a.set_fallback(kind);
    a.set_fallback_detail(detail.substr(0, 200));
  }
  a.set_action(action);
  return a;
}

enum class Next { kExit0, kExit2, kRetry, kRetryNow };

// One Connect stream, from Hello to its end.
Next Session(pb::BotService::Stub& stub, const std::string& referee, const std::string& token, uint32_t max_batch) {
  grpc::ClientContext ctx;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (stopped) return Next::kExit0;
    open_call = &ctx;
  }
  auto stream = stub.Connect(&ctx);
  pb::ConnectRequest hello;
  hello.mutable_hello()->set_bot_name(name);
  hello.mutable_hello()->set_protocol_version(PEPPER_PROTOCOL_VERSION);
  hello.mutable_hello()->set_token(token);
  hello.mutable_hello()->set_max_batch(max_batch);
  bool welcomed = false, draining = false;
  pb::ConnectResponse msg;
  if (stream->Write(hello)) {
    while (stream->Read(&msg)) {
      if (msg.has_welcome()) {
        welcomed = true;
        Log("connected as " + name + " to " + referee + " (connection " + msg.welcome().connection_id() +
            ", protocol " + msg.welcome().protocol_version() + ")");
        continue;
      }
      pb::ConnectRequest out;
      for (const pb::BatchItem& item : msg.batch().items()) {
        if (item.has_request()) {
          *out.mutable_answers()->add_answers() = AnswerFor(item.request());
        } else if (item.has_notice()) {
          if (item.notice().code() == pb::NOTICE_CODE_DRAINING)
            draining = true;
          else
            Log("notice " + pb::NoticeCode_Name(item.notice().code()) + ": " + item.notice().message());
        }
      }
      if (out.answers().answers_size() > 0 && !stream->Write(out)) break;
    }
  }
  grpc::Status status = stream->Finish();
  {
    std::lock_guard<std::mutex> lock(mu);
    open_call = nullptr;
  }
  if (Stopped()) {
    Log("received a signal; exiting");
    return Next::kExit0;
  }
  if (status.ok() && draining) {
    Log("the referee drained; exiting");
    return Next::kExit0;
  }
  switch (status.error_code()) {
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::INVALID_ARGUMENT:
      Log("the referee refused the bot: " + std::to_string(status.error_code()) + " " + status.error_message());
      return Next::kExit2;
    default:
      Log("the stream ended: " + std::to_string(status.error_code()) + " " + status.error_message());
      return welcomed ? Next::kRetryNow : Next::kRetry;
  }
}

}  // namespace

int main() {
  // Block the stop signals before gRPC starts its threads, so that only WaitForSignal receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread(WaitForSignal, signals).detach();

  const std::string referee = EnvOr("PEPPER_REFEREE", "127.0.0.1:50051");
  std::string token;
  try {
    token = LaunchToken();
  } catch (const std::exception& e) {
    Log(e.what());
    return 2;
  }
  const std::string tls_ca = EnvOr("PEPPER_TLS_CA", "");
  name = EnvOr("PEPPER_BOT_NAME", name);
  if (token.empty()) {
    Log("no token: the arena gives it on the pipe PEPPER_TOKEN_FD names; by hand, set PEPPER_TOKEN");
    return 2;
  }
  uint32_t max_batch = 0;
  try {
    max_batch = static_cast<uint32_t>(std::stoul(EnvOr("PEPPER_MAX_BATCH", "0")));
  } catch (const std::exception&) {
    Log("PEPPER_MAX_BATCH is not a number of requests");
    return 2;
  }
  std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
  if (!tls_ca.empty()) {
    std::ifstream in(tls_ca);
    std::stringstream pem;
    pem << in.rdbuf();
    if (!in) {
      Log("PEPPER_TLS_CA: cannot read " + tls_ca);
      return 2;
    }
    grpc::SslCredentialsOptions opts;
    opts.pem_root_certs = pem.str();
    creds = grpc::SslCredentials(opts);
  }
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  // The channel's own reconnection backoff (by default 1 s growing to 120 s) follows the bot's, so that a
  // restarted referee is found again within the bot's backoff.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 10000);
  auto stub = pb::BotService::NewStub(grpc::CreateCustomChannel(referee, creds, args));

  auto backoff = std::chrono::milliseconds(200);
  for (;;) {
    Next next = Session(*stub, referee, token, max_batch);
    if (next == Next::kExit0) return 0;
    if (next == Next::kExit2) return 2;
    if (next == Next::kRetryNow) backoff = std::chrono::milliseconds(200);
    std::ostringstream wait;
    wait.precision(1);
    wait << std::fixed << backoff.count() / 1000.0;
    Log("reconnecting in " + wait.str() + " s");
    std::unique_lock<std::mutex> lock(mu);
    if (stopped_cv.wait_for(lock, backoff, [] { return stopped; })) {
      Log("received a signal; exiting");
      return 0;
    }
    backoff = std::min(backoff * 2, std::chrono::milliseconds(10000));
  }
}
