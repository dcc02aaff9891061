package invalid.example.arbiter.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import invalid.example.arbiter.v1.GameError;
import invalid.example.arbiter.v1.RulesServiceGrpc;
import invalid.example.arbiter.v1.ValidateGameRequest;
import invalid.example.arbiter.v1.ValidateGameResponse;
import invalid.example.arbiter.v1.ValidateGamesRequest;
import invalid.example.arbiter.v1.ValidateGamesResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A small client of {@code arbiter.v1.RulesService}: a channel with the README's retry policy,
 * ValidateGame, the ValidateGames bulk stream as one call, and a bad request's rich error details
 * as a {@link RequestException}. {@link #rules()} is the generated blocking stub, for the RPCs this
 * class does not wrap.
 */
public final class ArbiterClient implements AutoCloseable {
    /** The README's retry policy: every RPC is a pure function of its request. */
    public static final Map<String, ?> SERVICE_CONFIG = Map.of(
            "methodConfig", List.of(Map.of(
                    "name", List.of(Map.of("service", "arbiter.v1.RulesService")),
                    "retryPolicy", Map.of(
                            "maxAttempts", 4.0,
                            "initialBackoff", "0.05s",
                            "maxBackoff", "1s",
                            "backoffMultiplier", 2.0,
                            "retryableStatusCodes", List.of("UNAVAILABLE", "RESOURCE_EXHAUSTED")))));

    private final ManagedChannel channel;
    private final long deadlineMillis;

    /** A plaintext client of {@code target} (e.g. {@code localhost:50051}), each call bounded by the deadline. */
    public ArbiterClient(String target, long deadlineMillis) {
        this(ManagedChannelBuilder.forTarget(target)
                .usePlaintext()
                .defaultServiceConfig(SERVICE_CONFIG)
                .enableRetry()
                .build(), deadlineMillis);
    }

    /** A client over a channel of the caller's (TLS, load balancing, interceptors). */
    public ArbiterClient(ManagedChannel channel, long deadlineMillis) {
        this.channel = channel;
        this.deadlineMillis = deadlineMillis;
    }

    /** The generated blocking stub with this client's deadline. */
    public RulesServiceGrpc.RulesServiceBlockingStub rules() {
        return RulesServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Checks one game. An illegal move is an answer ({@code getIllegalMove()}), not an error; a
     * request that cannot be answered (a bad FEN, too many moves) throws {@link RequestException}.
     */
    public ValidateGameResponse validateGame(ValidateGameRequest game) {
        try {
            return rules().validateGame(game);
        } catch (StatusRuntimeException e) {
            throw RequestException.from(e);
        }
    }

    /** The answer for one game of a bulk check: a verdict, or why it could not be checked. */
    public record GameResult(ValidateGameResponse game, GameError error) {
        /** Whether the game was checked (its verdict may still name an illegal move). */
        public boolean ok() {
            return error == null;
        }
    }

    /**
     * Checks games over one ValidateGames stream; the results come back in the same order. Sends
     * while it receives, within the server's back-pressure.
     */
    public List<GameResult> validateGames(List<ValidateGameRequest> games) throws InterruptedException {
        List<GameResult> results = new ArrayList<>(games.size());
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<ValidateGamesResponse> answers = new StreamObserver<>() {
            @Override
            public void onNext(ValidateGamesResponse reply) {
                String due = Integer.toString(results.size());
                if (!reply.getId().equals(due)) {
                    done.completeExceptionally(new IllegalStateException(
                            "ValidateGames answered id " + reply.getId() + " where " + due + " was due"));
                    return;
                }
                results.add(reply.hasError()
                        ? new GameResult(null, reply.getError())
                        : new GameResult(reply.getGame(), null));
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                done.complete(null);
            }
        };
        StreamObserver<ValidateGamesRequest> requests = RulesServiceGrpc.newStub(channel)
                .withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
                .validateGames(answers);
        for (int i = 0; i < games.size(); i++) {
            requests.onNext(ValidateGamesRequest.newBuilder().setId(Integer.toString(i)).setGame(games.get(i)).build());
        }
        requests.onCompleted();
        try {
            done.get(deadlineMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StatusRuntimeException status) {
                throw RequestException.from(status);
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw Status.DEADLINE_EXCEEDED.withDescription("ValidateGames").asRuntimeException();
        }
        if (results.size() != games.size()) {
            throw new IllegalStateException("ValidateGames answered " + results.size() + " of " + games.size() + " games");
        }
        return results;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdown();
        if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
            channel.shutdownNow();
        }
    }

    /**
     * A call refused with INVALID_ARGUMENT, with google.rpc.ErrorInfo's reason and domain and
     * google.rpc.BadRequest's field violations. It is a {@link StatusRuntimeException}, so code
     * that handles those keeps working.
     */
    public static final class RequestException extends StatusRuntimeException {
        private final ErrorInfo errorInfo;
        private final List<BadRequest.FieldViolation> fields;

        private RequestException(StatusRuntimeException cause, ErrorInfo errorInfo, List<BadRequest.FieldViolation> fields) {
            super(cause.getStatus(), cause.getTrailers());
            this.errorInfo = errorInfo;
            this.fields = fields;
        }

        /** A RequestException when {@code e} carries ErrorInfo details, else {@code e} itself. */
        static StatusRuntimeException from(StatusRuntimeException e) {
            com.google.rpc.Status status = StatusProto.fromThrowable(e);
            if (status == null || e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
                return e;
            }
            ErrorInfo errorInfo = null;
            List<BadRequest.FieldViolation> fields = new ArrayList<>();
            try {
                for (Any detail : status.getDetailsList()) {
                    if (detail.is(ErrorInfo.class)) {
                        errorInfo = detail.unpack(ErrorInfo.class);
                    } else if (detail.is(BadRequest.class)) {
                        fields.addAll(detail.unpack(BadRequest.class).getFieldViolationsList());
                    }
                }
            } catch (InvalidProtocolBufferException bad) {
                return e;
            }
            return errorInfo == null ? e : new RequestException(e, errorInfo, List.copyOf(fields));
        }

        /** The status message, a lowercase sentence. */
        public String message() {
            return getStatus().getDescription();
        }

        /** ErrorInfo.reason, e.g. {@code INVALID_FEN} or {@code TOO_MANY_MOVES}. */
        public String reason() {
            return errorInfo.getReason();
        }

        /** ErrorInfo.domain, {@code arbiter.v1}. */
        public String domain() {
            return errorInfo.getDomain();
        }

        /** BadRequest's field violations: the request field at fault (e.g. {@code fen}) and why. */
        public List<BadRequest.FieldViolation> fields() {
            return fields;
        }
    }
}
