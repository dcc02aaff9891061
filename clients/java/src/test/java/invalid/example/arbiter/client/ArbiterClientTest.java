package invalid.example.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import invalid.example.arbiter.v1.GameError;
import invalid.example.arbiter.v1.GameResult;
import invalid.example.arbiter.v1.IllegalMove;
import invalid.example.arbiter.v1.IllegalMoveReason;
import invalid.example.arbiter.v1.Ply;
import invalid.example.arbiter.v1.Termination;
import invalid.example.arbiter.v1.ValidateGameRequest;
import invalid.example.arbiter.v1.ValidateGameResponse;
import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client against the real server: ARBITER_BIN started on a free port of 127.0.0.1, waited for
 * (the first call waits until the server accepts), and stopped by PID with SIGTERM at the end,
 * which must drain and exit 0.
 */
class ArbiterClientTest {
    private static final long CALL_DEADLINE_MS = 30_000;
    private static Process server;
    private static String address;
    private static ArbiterClient client;

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @BeforeAll
    static void startServer() throws IOException {
        String binary = System.getenv("ARBITER_BIN");
        if (binary == null || binary.isEmpty()) {
            throw new IllegalStateException("set ARBITER_BIN to the server binary");
        }
        address = "127.0.0.1:" + freePort();
        server = new ProcessBuilder(binary, "serve", "--listen", address,
                "--metrics-listen", "127.0.0.1:" + freePort())
                .inheritIO()
                .start();
        client = new ArbiterClient(address, CALL_DEADLINE_MS);
        // Wait for the server: a call that waits until the channel connects.
        client.rules().withWaitForReady().validateGame(ValidateGameRequest.getDefaultInstance());
    }

    @AfterAll
    static void stopServer() throws InterruptedException {
        if (client != null) {
            client.close();
        }
        server.destroy(); // SIGTERM
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
            server.destroyForcibly();
            throw new AssertionError("server still running 20 s after SIGTERM (killed)");
        }
        assertEquals(0, server.exitValue(), "server exit status after SIGTERM");
    }

    private static List<String> sans(List<Ply> plies) {
        return plies.stream().map(Ply::getSan).toList();
    }

    @Test
    void checkmate() {
        ValidateGameResponse reply = client.validateGame(ValidateGameRequest.newBuilder()
                .addAllMoves(List.of("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "h5f7"))
                .build());
        assertEquals(List.of("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"), sans(reply.getPliesList()));
        assertEquals("h5f7", reply.getPlies(6).getUci());
        assertFalse(reply.hasIllegalMove());
        assertEquals(GameResult.GAME_RESULT_WHITE_WINS, reply.getOutcome().getResult());
        assertEquals(Termination.TERMINATION_CHECKMATE, reply.getOutcome().getTermination());
        assertEquals("1-0", reply.getOutcome().getPgnResult());
        assertEquals(0, reply.getPosition().getLegalMovesCount());
    }

    @Test
    void illegalMoveIsAnAnswer() {
        ValidateGameResponse reply = client.validateGame(ValidateGameRequest.newBuilder()
                .addAllMoves(List.of("e4", "e5", "Ng1-f3", "Ke7", "Bb5", "Ke6", "Bxe8"))
                .build());
        assertEquals(List.of("e4", "e5", "Nf3", "Ke7", "Bb5", "Ke6"), sans(reply.getPliesList()));
        IllegalMove bad = reply.getIllegalMove();
        assertEquals(6, bad.getIndex());
        assertEquals("Bxe8", bad.getMove());
        assertEquals(IllegalMoveReason.ILLEGAL_MOVE_REASON_PATH_BLOCKED, bad.getReason());
        assertEquals("the white bishop on b5 is blocked by the piece on d7", bad.getMessage());
    }

    @Test
    void validateGamesStream() throws InterruptedException {
        List<ValidateGameRequest> games = new ArrayList<>(List.of(
                ValidateGameRequest.newBuilder().addAllMoves(List.of("f3", "e5", "g4", "Qh4#")).build(),
                ValidateGameRequest.newBuilder().setFen("not a fen").addMoves("e4").build(),
                ValidateGameRequest.newBuilder().addAllMoves(List.of("e4", "e5", "Nf3")).setIncludeFens(true).build()));
        // More games than the server reads ahead of its answers (16).
        List<String> opening = List.of("d4", "d5", "c4");
        for (int i = 0; i < 40; i++) {
            games.add(ValidateGameRequest.newBuilder().addAllMoves(opening.subList(0, i % 4)).build());
        }
        List<ArbiterClient.GameResult> results = client.validateGames(games);
        assertEquals(games.size(), results.size());

        assertEquals(Termination.TERMINATION_CHECKMATE, results.get(0).game().getOutcome().getTermination());
        assertEquals("0-1", results.get(0).game().getOutcome().getPgnResult());

        assertFalse(results.get(1).ok());
        assertNull(results.get(1).game());
        GameError error = results.get(1).error();
        assertEquals("INVALID_ARGUMENT", error.getCode());
        assertEquals("INVALID_FEN", error.getReason());
        assertEquals("game.fen", error.getField());
        assertFalse(error.getMessage().isEmpty());

        assertEquals("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
                results.get(2).game().getPlies(2).getFenAfter());
        for (int i = 0; i < 40; i++) {
            assertEquals(i % 4, results.get(3 + i).game().getPliesCount(), "plies of game " + (3 + i));
        }
    }

    @Test
    void badRequestDetails() {
        ArbiterClient.RequestException refused = assertThrows(ArbiterClient.RequestException.class,
                () -> client.validateGame(ValidateGameRequest.newBuilder().setFen("8/8/8/8/8/8/8/8 w - - 0 1").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode());
        assertEquals("ILLEGAL_POSITION", refused.reason());
        assertEquals("arbiter.v1", refused.domain());
        assertEquals("illegal position: white has no king", refused.message());
        assertEquals(1, refused.fields().size());
        assertEquals("fen", refused.fields().get(0).getField());
        assertFalse(refused.fields().get(0).getDescription().isEmpty());
    }

    @Test
    void tooManyMoves() {
        List<String> moves = new ArrayList<>(Collections.nCopies(1025, "Nf3"));
        ArbiterClient.RequestException refused = assertThrows(ArbiterClient.RequestException.class,
                () -> client.validateGame(ValidateGameRequest.newBuilder().addAllMoves(moves).build()));
        assertEquals("TOO_MANY_MOVES", refused.reason());
        assertEquals("moves", refused.fields().get(0).getField());
        assertTrue(refused.message().contains("1025 moves"), refused.message());
    }

    /** The example of clients/java/README.md, but for the address, with its output checked. */
    @Test
    void readmeExample() throws InterruptedException {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            try (ArbiterClient client = new ArbiterClient(address, 5_000)) {
                ValidateGameResponse reply = client.validateGame(ValidateGameRequest.newBuilder()
                        .addAllMoves(List.of("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7")).build());
                reply.getPliesList().forEach(ply -> System.out.print(ply.getSan() + " "));
                System.out.println(reply.getOutcome().getTermination());   // ... Qxf7# TERMINATION_CHECKMATE
                try {
                    client.validateGame(ValidateGameRequest.newBuilder().setFen("8/8/8/8/8/8/8/8 w - - 0 1").build());
                } catch (ArbiterClient.RequestException refused) {
                    System.out.println(refused.reason() + " " + refused.fields().get(0).getField());   // ILLEGAL_POSITION fen
                }
            }
        } finally {
            System.setOut(stdout);
        }
        assertEquals("e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# TERMINATION_CHECKMATE\nILLEGAL_POSITION fen\n",
                printed.toString(StandardCharsets.UTF_8));
    }
}
