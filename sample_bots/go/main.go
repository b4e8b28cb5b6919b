// Command pepper-go-bot is the Go starter kit: a Pepper Arena bot that speaks the pepper.v1 protocol over gRPC
// (docs/protocol.md) and plays every ruleset with the small heuristic in strategy.go.
//
// It is configured like every launched bot (docs/arena.md): PEPPER_REFEREE (host:port, default
// 127.0.0.1:50051), its token (read from the pipe PEPPER_TOKEN_FD names, else PEPPER_TOKEN), PEPPER_BOT_NAME, and optionally PEPPER_MAX_BATCH and PEPPER_TLS_CA (a PEM CA
// certificate: connect with TLS). Exit status: 0 after SIGTERM or SIGINT, or once a draining referee ends the
// stream; 2 when the configuration is wrong or the referee refuses the bot. A stream that drops otherwise is
// reconnected, backing off from 0.2 s up to 10 s.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	pb "pepperarena.dev/pepper/v1"
)

// protocolVersion is the pepper.v1 version this bot speaks; the Makefile sets it from proto/VERSION.
var protocolVersion = "1.6"

const (
	// Keepalive as agreed with the referee (docs/protocol.md, "Keepalive"): a ping every 30 s, never under 20 s.
	keepaliveTime    = 30 * time.Second
	keepaliveTimeout = 10 * time.Second
	// A Batch of many requests is larger than gRPC's default 4 MiB receive limit allows.
	maxReceiveBytes = 64 << 20
)

type config struct {
	referee, token, name, tlsCA string
	maxBatch                    uint32
}

// launchToken is the bot's token: read to its end from the pipe whose descriptor PEPPER_TOKEN_FD names (how the
// arena hands it over: another process of the same user can read the environment in /proc, not a pipe already
// read), else PEPPER_TOKEN. Both are then removed from the environment, so that programs the bot starts do not
// inherit them.
func launchToken() (string, error) {
	token, fd := os.Getenv("PEPPER_TOKEN"), os.Getenv("PEPPER_TOKEN_FD")
	os.Unsetenv("PEPPER_TOKEN")
	os.Unsetenv("PEPPER_TOKEN_FD")
	if fd == "" {
		return token, nil
	}
	n, err := strconv.Atoi(fd)
	if err != nil || n < 0 {
		return "", fmt.Errorf("PEPPER_TOKEN_FD=%q is not a file descriptor", fd)
	}
	pipe := os.NewFile(uintptr(n), "PEPPER_TOKEN_FD")
	defer pipe.Close()
	b, err := io.ReadAll(pipe)
	if err != nil {
		return "", fmt.Errorf("cannot read the token from PEPPER_TOKEN_FD=%d: %w", n, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	token, err := launchToken()
	cfg := config{
		referee: envOr("PEPPER_REFEREE", "127.0.0.1:50051"),
		token:   token,
		name:    envOr("PEPPER_BOT_NAME", "go-starter"),
		tlsCA:   os.Getenv("PEPPER_TLS_CA"),
	}
	log.SetPrefix(cfg.name + " ")
	if err != nil {
		log.Print(err)
		os.Exit(2)
	}
	if cfg.token == "" {
		log.Print("no token: the arena gives it on the pipe PEPPER_TOKEN_FD names; by hand, set PEPPER_TOKEN")
		os.Exit(2)
	}
	if s := os.Getenv("PEPPER_MAX_BATCH"); s != "" {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			log.Printf("PEPPER_MAX_BATCH=%q is not a number of requests", s)
			os.Exit(2)
		}
		cfg.maxBatch = uint32(n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, cfg))
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func run(ctx context.Context, cfg config) int {
	creds := grpc.WithInsecure()
	if cfg.tlsCA != "" {
		tc, err := credentials.NewClientTLSFromFile(cfg.tlsCA, "")
		if err != nil {
			log.Printf("PEPPER_TLS_CA: %v", err)
			return 2
		}
		creds = grpc.WithTransportCredentials(tc)
	}
	conn, err := grpc.Dial(cfg.referee, creds,
		grpc.WithKeepaliveParams(keepalive.ClientParameters{
			Time: keepaliveTime, Timeout: keepaliveTimeout, PermitWithoutStream: true}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceiveBytes)),
		// The channel's own reconnection backoff (by default 1 s growing to 120 s) follows the bot's, so that
		// a restarted referee is found again within the bot's backoff.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{
			BaseDelay: 200 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 10 * time.Second}}))
	if err != nil {
		log.Printf("cannot dial %s: %v", cfg.referee, err)
		return 2
	}
	defer conn.Close()
	client := pb.NewBotServiceClient(conn)
	wait := 200 * time.Millisecond
	for {
		code, retry, welcomed := session(ctx, client, cfg)
		if !retry {
			return code
		}
		if welcomed {
			wait = 200 * time.Millisecond
		}
		log.Printf("reconnecting in %.1f s", wait.Seconds())
		select {
		case <-ctx.Done():
			log.Print("received a signal; exiting")
			return 0
		case <-time.After(wait):
		}
		if wait *= 2; wait > 10*time.Second {
			wait = 10 * time.Second
		}
	}
}

// session runs one Connect stream: the exit code, whether to reconnect, and whether the referee welcomed the bot.
func session(ctx context.Context, client pb.BotServiceClient, cfg config) (code int, retry, welcomed bool) {
	stream, err := client.Connect(ctx)
	if err == nil {
		err = stream.Send(&pb.ConnectRequest{Message: &pb.ConnectRequest_Hello{Hello: &pb.Hello{
			BotName: cfg.name, ProtocolVersion: protocolVersion, Token: cfg.token, MaxBatch: cfg.maxBatch}}})
	}
	draining := false
	for err == nil {
		var msg *pb.ConnectResponse
		if msg, err = stream.Recv(); err != nil {
			break
		}
		switch m := msg.Message.(type) {
		case *pb.ConnectResponse_Welcome:
			welcomed = true
			log.Printf("connected as %s to %s (connection %s, protocol %s, max_batch %d)", cfg.name, cfg.referee,
				m.Welcome.ConnectionId, m.Welcome.ProtocolVersion, m.Welcome.MaxBatch)
		case *pb.ConnectResponse_Batch:
			var answers []*pb.Answer
			for _, item := range m.Batch.Items {
				switch it := item.Item.(type) {
				case *pb.BatchItem_Request:
					answers = append(answers, answer(it.Request))
				case *pb.BatchItem_Notice:
					if it.Notice.Code == pb.NoticeCode_NOTICE_CODE_DRAINING {
						draining = true
					} else {
						log.Printf("notice %s: %s", it.Notice.Code, it.Notice.Message)
					}
				}
			}
			if len(answers) > 0 {
				err = stream.Send(&pb.ConnectRequest{Message: &pb.ConnectRequest_Answers{
					Answers: &pb.AnswerBatch{Answers: answers}}})
			}
		}
	}
	switch st := status.Code(err); {
	case ctx.Err() != nil:
		log.Print("received a signal; exiting")
		return 0, false, welcomed
	case errors.Is(err, io.EOF) && draining:
		log.Print("the referee drained; exiting")
		return 0, false, welcomed
	case st == codes.Unauthenticated || st == codes.FailedPrecondition || st == codes.InvalidArgument:
		log.Printf("the referee refused the bot: %v", err)
		return 2, false, welcomed
	}
	log.Printf("the stream ended: %v", err)
	return 1, true, welcomed
}

// answer asks the strategy; should it panic or answer something not legal, the first legal action is sent
// instead, marked as a fallback so the referee counts it (SeatResult.fallbacks).
func answer(req *pb.DecisionRequest) (a *pb.Answer) {
	a = &pb.Answer{RequestId: req.RequestId, GameId: req.GameId}
	if len(req.LegalActions) == 0 {
		return a
	}
	fallback := func(kind pb.StrategyFallback, detail string) {
		log.Printf("game %s request %d: %s; playing %q", req.GameId, req.RequestId, detail, req.LegalActions[0])
		a.Choice = &pb.Answer_Action{Action: req.LegalActions[0]}
		a.Fallback, a.FallbackDetail = kind, detail
	}
	defer func() {
		if r := recover(); r != nil {
			fallback(pb.StrategyFallback_STRATEGY_FALLBACK_RAISED, fmt.Sprintf("decide() panicked: %v", r))
		}
	}()
	action := decide(req)
	for _, legal := range req.LegalActions {
		if action == legal {
			a.Choice = &pb.Answer_Action{Action: action}
			return a
		}
	}
	fallback(pb.StrategyFallback_STRATEGY_FALLBACK_ILLEGAL, fmt.Sprintf("decide() returned %q, not legal", action))
	return a
}
