// Package arbiter is a small typed client of arbiter.v1.RulesService: a
// connection with the retry policy of the README, ValidateGame, the
// ValidateGames bulk stream as one call, and the rich error details of a bad
// request as a Go error.
//
// The messages and the stub are generated from proto/ into
// example.invalid/arbiter/gen/go/arbiter/v1 (package arbiterv1); the stub is
// Client.Rules, for the RPCs this package does not wrap.
package arbiter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	arbiterv1 "example.invalid/arbiter/gen/go/arbiter/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ServiceConfig retries a call that a replica going away cut off: every RPC
// of the service is a pure function of its request.
const ServiceConfig = `{
  "methodConfig": [{
    "name": [{"service": "arbiter.v1.RulesService"}],
    "retryPolicy": {
      "maxAttempts": 4,
      "initialBackoff": "0.05s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]
    }
  }]
}`

// Client calls one Arbiter server (or a balanced set of them).
type Client struct {
	conn *grpc.ClientConn
	// Rules is the generated stub, for LegalMoves, Perft and ValidatePgn.
	Rules arbiterv1.RulesServiceClient
}

// Dial connects to target (e.g. "localhost:50051") in plaintext, as inside a
// mesh, with ServiceConfig; options given are applied after those. For TLS,
// or any other way of connecting, dial with grpc.Dial yourself (with
// grpc.WithDefaultServiceConfig(ServiceConfig)) and call New.
func Dial(target string, opts ...grpc.DialOption) (*Client, error) {
	all := append([]grpc.DialOption{
		grpc.WithInsecure(),
		grpc.WithDefaultServiceConfig(ServiceConfig),
	}, opts...)
	conn, err := grpc.Dial(target, all...)
	if err != nil {
		return nil, err
	}
	return New(conn), nil
}

// New is a client over a connection of the caller's; Close closes it.
func New(conn *grpc.ClientConn) *Client {
	return &Client{conn: conn, Rules: arbiterv1.NewRulesServiceClient(conn)}
}

// Close closes the connection.
func (c *Client) Close() error {
	return c.conn.Close()
}

// ValidateGame checks one game. An illegal move is an answer
// (IllegalMove on the response), not an error; a request that cannot be
// answered (a bad FEN, too many moves) is a *RequestError.
func (c *Client) ValidateGame(ctx context.Context, game *arbiterv1.ValidateGameRequest) (*arbiterv1.ValidateGameResponse, error) {
	reply, err := c.Rules.ValidateGame(ctx, game)
	if err != nil {
		return nil, requestError(err)
	}
	return reply, nil
}

// GameResult is the answer for one game of a bulk check: a verdict, or why
// the game could not be checked (the per-game form of a RequestError).
type GameResult struct {
	Game  *arbiterv1.ValidateGameResponse
	Error *arbiterv1.GameError
}

// ValidateGames checks games over one ValidateGames stream and returns their
// results in the same order. It sends while it receives, so any number of
// games flows within the server's back-pressure.
func (c *Client) ValidateGames(ctx context.Context, games []*arbiterv1.ValidateGameRequest) ([]GameResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Rules.ValidateGames(ctx)
	if err != nil {
		return nil, requestError(err)
	}
	sent := make(chan error, 1)
	go func() {
		for i, game := range games {
			request := &arbiterv1.ValidateGamesRequest{Id: strconv.Itoa(i), Game: game}
			if err := stream.Send(request); err != nil {
				// The stream failed: Recv reports why.
				sent <- nil
				return
			}
		}
		sent <- stream.CloseSend()
	}()
	results := make([]GameResult, 0, len(games))
	for {
		reply, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, requestError(err)
		}
		if want := strconv.Itoa(len(results)); reply.GetId() != want {
			return nil, fmt.Errorf("arbiter: ValidateGames answered id %q where %q was due", reply.GetId(), want)
		}
		results = append(results, GameResult{Game: reply.GetGame(), Error: reply.GetError()})
	}
	if err := <-sent; err != nil {
		return nil, err
	}
	if len(results) != len(games) {
		return nil, fmt.Errorf("arbiter: ValidateGames answered %d of %d games", len(results), len(games))
	}
	return results, nil
}

// RequestError is a call the server refused with INVALID_ARGUMENT and the
// details of google.rpc.ErrorInfo and google.rpc.BadRequest.
type RequestError struct {
	// Message is the status message, a lowercase sentence.
	Message string
	// Reason is ErrorInfo.reason, e.g. "INVALID_FEN" or "TOO_MANY_MOVES".
	Reason string
	// Domain is ErrorInfo.domain, "arbiter.v1".
	Domain string
	// Fields are BadRequest's field violations: the request field at fault
	// (e.g. "fen") and why.
	Fields []*errdetails.BadRequest_FieldViolation
	status *status.Status
}

func (e *RequestError) Error() string {
	fields := make([]string, len(e.Fields))
	for i, field := range e.Fields {
		fields[i] = field.GetField()
	}
	return fmt.Sprintf("arbiter: %s (%s, field %s)", e.Message, e.Reason, strings.Join(fields, ", "))
}

// GRPCStatus keeps status.Code and status.Convert working on the error.
func (e *RequestError) GRPCStatus() *status.Status {
	return e.status
}

// requestError turns an INVALID_ARGUMENT status with ErrorInfo details into
// a *RequestError; any other error is returned as it is.
func requestError(err error) error {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.InvalidArgument {
		return err
	}
	refused := &RequestError{Message: st.Message(), status: st}
	for _, detail := range st.Details() {
		switch detail := detail.(type) {
		case *errdetails.ErrorInfo:
			refused.Reason, refused.Domain = detail.GetReason(), detail.GetDomain()
		case *errdetails.BadRequest:
			refused.Fields = append(refused.Fields, detail.GetFieldViolations()...)
		}
	}
	if refused.Reason == "" {
		return err
	}
	return refused
}

// AsRequestError is errors.As for a *RequestError.
func AsRequestError(err error) (*RequestError, bool) {
	var refused *RequestError
	ok := errors.As(err, &refused)
	return refused, ok
}
