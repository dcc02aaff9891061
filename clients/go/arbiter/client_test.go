package arbiter

// The tests start the real server (ARBITER_BIN, an absolute path) on a free
// port of 127.0.0.1, wait until its health check answers SERVING, and stop it
// by PID with SIGTERM at the end, failing unless it drains and exits 0.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"reflect"
	"syscall"
	"testing"
	"time"

	arbiterv1 "example.invalid/arbiter/gen/go/arbiter/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

const (
	startupTimeout  = 30 * time.Second
	shutdownTimeout = 20 * time.Second
	callTimeout     = 30 * time.Second
)

// serverAddress is where the test server listens.
var serverAddress string

func TestMain(m *testing.M) {
	server, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "arbiter test server:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := stopServer(server); err != nil {
		fmt.Fprintln(os.Stderr, "arbiter test server:", err)
		code = 1
	}
	os.Exit(code)
}

func freePort() (string, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer listener.Close()
	return listener.Addr().String(), nil
}

func startServer() (*exec.Cmd, error) {
	binary := os.Getenv("ARBITER_BIN")
	if binary == "" {
		return nil, fmt.Errorf("set ARBITER_BIN to the server binary (an absolute path)")
	}
	address, err := freePort()
	if err != nil {
		return nil, err
	}
	metrics, err := freePort()
	if err != nil {
		return nil, err
	}
	server := exec.Command(binary, "serve", "--listen", address, "--metrics-listen", metrics)
	server.Stdout, server.Stderr = os.Stderr, os.Stderr
	if err := server.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	if err := awaitServing(address, exited); err != nil {
		server.Process.Kill()
		<-exited
		return nil, err
	}
	serverAddress = address
	// Wait has been called: stopServer reads the exit from here.
	serverExits = exited
	return server, nil
}

var serverExits <-chan error

// awaitServing polls the health service until arbiter.v1.RulesService is
// SERVING, the server exits, or startupTimeout passes.
func awaitServing(address string, exited <-chan error) error {
	conn, err := grpc.Dial(address, grpc.WithInsecure())
	if err != nil {
		return err
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(startupTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		reply, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "arbiter.v1.RulesService"})
		cancel()
		if err == nil && reply.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("server exited before serving: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server not SERVING after %v", startupTimeout)
		}
	}
}

func stopServer(server *exec.Cmd) error {
	if err := server.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-serverExits:
		if err != nil {
			return fmt.Errorf("server exited with %v after SIGTERM", err)
		}
		return nil
	case <-time.After(shutdownTimeout):
		server.Process.Kill()
		<-serverExits
		return fmt.Errorf("server still running %v after SIGTERM (killed)", shutdownTimeout)
	}
}

func dial(t *testing.T) (*Client, context.Context) {
	t.Helper()
	client, err := Dial(serverAddress)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(func() {
		cancel()
		client.Close()
	})
	return client, ctx
}

func sans(plies []*arbiterv1.Ply) []string {
	out := make([]string, len(plies))
	for i, ply := range plies {
		out[i] = ply.GetSan()
	}
	return out
}

func TestValidateGameCheckmate(t *testing.T) {
	client, ctx := dial(t)
	reply, err := client.ValidateGame(ctx, &arbiterv1.ValidateGameRequest{
		Moves: []string{"e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "h5f7"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"}
	if got := sans(reply.GetPlies()); !reflect.DeepEqual(got, want) {
		t.Errorf("SAN %v, want %v", got, want)
	}
	if got := reply.GetPlies()[6].GetUci(); got != "h5f7" {
		t.Errorf("UCI of the last ply %q, want h5f7", got)
	}
	if reply.GetIllegalMove() != nil {
		t.Errorf("illegal move %v in a legal game", reply.GetIllegalMove())
	}
	outcome := reply.GetOutcome()
	if outcome.GetResult() != arbiterv1.GameResult_GAME_RESULT_WHITE_WINS ||
		outcome.GetTermination() != arbiterv1.Termination_TERMINATION_CHECKMATE ||
		outcome.GetPgnResult() != "1-0" {
		t.Errorf("outcome %v, want white wins by checkmate, 1-0", outcome)
	}
	if moves := reply.GetPosition().GetLegalMoves(); len(moves) != 0 {
		t.Errorf("%d legal moves after mate", len(moves))
	}
}

func TestIllegalMoveIsAnAnswer(t *testing.T) {
	client, ctx := dial(t)
	reply, err := client.ValidateGame(ctx, &arbiterv1.ValidateGameRequest{
		Moves: []string{"e4", "e5", "Ng1-f3", "Ke7", "Bb5", "Ke6", "Bxe8"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sans(reply.GetPlies()), []string{"e4", "e5", "Nf3", "Ke7", "Bb5", "Ke6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("legal prefix %v, want %v", got, want)
	}
	bad := reply.GetIllegalMove()
	if bad.GetIndex() != 6 || bad.GetMove() != "Bxe8" ||
		bad.GetReason() != arbiterv1.IllegalMoveReason_ILLEGAL_MOVE_REASON_PATH_BLOCKED {
		t.Errorf("illegal move %v, want index 6 Bxe8 PATH_BLOCKED", bad)
	}
	if want := "the white bishop on b5 is blocked by the piece on d7"; bad.GetMessage() != want {
		t.Errorf("message %q, want %q", bad.GetMessage(), want)
	}
}

func TestValidateGamesStream(t *testing.T) {
	client, ctx := dial(t)
	games := []*arbiterv1.ValidateGameRequest{
		{Moves: []string{"f3", "e5", "g4", "Qh4#"}},
		{Fen: "not a fen", Moves: []string{"e4"}},
		{Moves: []string{"e4", "e5", "Nf3"}, IncludeFens: true},
	}
	// More games than the server reads ahead of its answers (16).
	for i := 0; i < 40; i++ {
		games = append(games, &arbiterv1.ValidateGameRequest{Moves: []string{"d4", "d5", "c4"}[:i%4]})
	}
	results, err := client.ValidateGames(ctx, games)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(games) {
		t.Fatalf("%d results for %d games", len(results), len(games))
	}
	if got := results[0].Game.GetOutcome(); got.GetTermination() != arbiterv1.Termination_TERMINATION_CHECKMATE || got.GetPgnResult() != "0-1" {
		t.Errorf("fool's mate: outcome %v", got)
	}
	if bad := results[1].Error; bad == nil || bad.GetCode() != "INVALID_ARGUMENT" ||
		bad.GetReason() != "INVALID_FEN" || bad.GetField() != "game.fen" || bad.GetMessage() == "" {
		t.Errorf("bad FEN: error %v, want INVALID_ARGUMENT INVALID_FEN on game.fen", bad)
	}
	if results[1].Game != nil {
		t.Errorf("bad FEN: a verdict as well as an error")
	}
	if got, want := results[2].Game.GetPlies()[2].GetFenAfter(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"; got != want {
		t.Errorf("FEN after Nf3 %q, want %q", got, want)
	}
	for i, result := range results[3:] {
		if got := len(result.Game.GetPlies()); got != i%4 {
			t.Errorf("game %d: %d plies, want %d", i+3, got, i%4)
		}
	}
}

func TestBadRequestDetails(t *testing.T) {
	client, ctx := dial(t)
	_, err := client.ValidateGame(ctx, &arbiterv1.ValidateGameRequest{Fen: "8/8/8/8/8/8/8/8 w - - 0 1"})
	if got := status.Code(err); got != codes.InvalidArgument {
		t.Fatalf("code %v (%v), want InvalidArgument", got, err)
	}
	refused, ok := AsRequestError(err)
	if !ok {
		t.Fatalf("%T %v is no *RequestError", err, err)
	}
	if refused.Reason != "ILLEGAL_POSITION" || refused.Domain != "arbiter.v1" {
		t.Errorf("ErrorInfo %s/%s, want arbiter.v1/ILLEGAL_POSITION", refused.Domain, refused.Reason)
	}
	if refused.Message != "illegal position: white has no king" {
		t.Errorf("message %q", refused.Message)
	}
	if len(refused.Fields) != 1 || refused.Fields[0].GetField() != "fen" || refused.Fields[0].GetDescription() == "" {
		t.Errorf("BadRequest field violations %v, want one on fen", refused.Fields)
	}
}

func TestTooManyMoves(t *testing.T) {
	client, ctx := dial(t)
	moves := make([]string, 1025)
	for i := range moves {
		moves[i] = []string{"Nf3", "Nf6", "Ng1", "Ng8"}[i%4]
	}
	_, err := client.ValidateGame(ctx, &arbiterv1.ValidateGameRequest{Moves: moves})
	refused, ok := AsRequestError(err)
	if !ok || refused.Reason != "TOO_MANY_MOVES" || len(refused.Fields) != 1 || refused.Fields[0].GetField() != "moves" {
		t.Errorf("error %v, want TOO_MANY_MOVES on moves", err)
	}
}

// ServerAddress is the test server's address, for the example (package
// arbiter_test), which sees only exported names; it exists only in tests.
func ServerAddress() string {
	return serverAddress
}
