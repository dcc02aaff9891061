package arbiter_test

import (
	"context"
	"fmt"
	"log"
	"time"

	arbiter "example.invalid/arbiter/clients/go/arbiter"
	arbiterv1 "example.invalid/arbiter/gen/go/arbiter/v1"
)

// The example of clients/go/README.md, run against the test server.
func ExampleClient() {
	address := arbiter.ServerAddress() // in the README: "localhost:50051"
	client, err := arbiter.Dial(address)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	reply, err := client.ValidateGame(ctx, &arbiterv1.ValidateGameRequest{
		Moves: []string{"e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, ply := range reply.GetPlies() {
		fmt.Print(ply.GetSan(), " ")
	}
	fmt.Println(reply.GetOutcome().GetTermination(), reply.GetOutcome().GetPgnResult())

	// Many games over one stream: a result per game, in order.
	results, err := client.ValidateGames(ctx, []*arbiterv1.ValidateGameRequest{
		{Moves: []string{"f3", "e5", "g4", "Qh4#"}},
		{Fen: "not a fen"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(results[0].Game.GetOutcome().GetPgnResult(), results[1].Error.GetReason(), results[1].Error.GetField())

	// A bad request: INVALID_ARGUMENT with its reason and the field at fault.
	_, err = client.ValidateGame(ctx, &arbiterv1.ValidateGameRequest{Fen: "8/8/8/8/8/8/8/8 w - - 0 1"})
	if refused, ok := arbiter.AsRequestError(err); ok {
		fmt.Println(refused.Reason, refused.Fields[0].GetField(), refused.Message)
	}
	// Output:
	// e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# TERMINATION_CHECKMATE 1-0
	// 0-1 INVALID_FEN game.fen
	// ILLEGAL_POSITION fen illegal position: white has no king
}
