//! The service on raw request bytes: the input is decoded as each request
//! message and handed to the `RulesService` handlers, and framed twice as a
//! `ValidateGames` stream that goes through the service's own codec. Every
//! call answers OK or INVALID_ARGUMENT (never INTERNAL, never a panic), and
//! the answers hold together: a stream answers every game in order, an
//! illegal move sits right after the accepted plies, a divide adds up, a
//! clock that runs times every ply. A
//! service with the replay cache (kept across inputs, so that one input
//! extending an earlier one resumes from it) answers exactly as one without.
#![no_main]

use std::sync::OnceLock;

use arbiter::api::Limits;
use arbiter::api::codec::{ArbiterCodec, Decode};
use arbiter::api::service::Handlers;
use arbiter::api::wire;
use arbiter::cache::ReplayCache;
use arbiter::proto::{self, rules_service_server::RulesService};
use bytes::Bytes;
use futures_util::StreamExt;
use libfuzzer_sys::fuzz_target;
use tonic::codec::{Codec, Streaming};
use tonic::{Code, Request, Response, Status};

/// One runtime for the whole run: building one per input would dominate.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
    })
}

/// The service without a cache and with a small one, made once so that the
/// cache outlives an input. Perft is capped low so that an input costs
/// microseconds, not seconds.
fn services() -> &'static (Handlers, Handlers) {
    static SERVICES: OnceLock<(Handlers, Handlers)> = OnceLock::new();
    SERVICES.get_or_init(|| {
        let limits = Limits { max_perft_depth: 3, ..Limits::default() };
        let cached = Handlers::new(limits.clone(), ReplayCache::new(1 << 20));
        (Handlers::new(limits, None), cached)
    })
}

/// The only error a request may earn here: one call at a time, no deadline.
fn check_error(status: &Status) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
}

fn check_game(request: &wire::ValidateGameRequest, response: &wire::GameAnswer) {
    let response =
        proto::ValidateGameResponse::decode(response.as_bytes()).expect("an answer decodes");
    let from = request.plies_from as usize;
    let accepted = match &response.illegal_move {
        Some(bad) => {
            assert!((bad.index as usize) < request.moves.len());
            bad.index as usize
        }
        None => request.moves.len(),
    };
    assert_eq!(response.plies.len(), accepted.saturating_sub(from));
    // A clock that runs gives every ply its mover's time and the position
    // both; none runs without a record.
    let clocks = response.position.as_ref().and_then(|p| p.clocks);
    assert!(request.clock.is_some() || clocks.is_none());
    assert!(response.plies.iter().all(|ply| ply.clock.is_some() == clocks.is_some()));
}

/// A gRPC request body: each message with its 5-byte length prefix.
fn frames(messages: &[&[u8]]) -> Bytes {
    let mut body = Vec::new();
    for message in messages {
        body.push(0);
        body.extend_from_slice(&u32::try_from(message.len()).expect("small").to_be_bytes());
        body.extend_from_slice(message);
    }
    Bytes::from(body)
}

/// The same answer from both services: equal messages, or equal codes.
fn same<T: PartialEq + std::fmt::Debug>(plain: &Result<T, Status>, cached: &Result<T, Status>) {
    match (plain, cached) {
        (Ok(plain), Ok(cached)) => assert_eq!(plain, cached, "the cache changed an answer"),
        (Err(plain), Err(cached)) => assert_eq!(plain.code(), cached.code()),
        _ => panic!("the cache changed an answer: {plain:?} vs {cached:?}"),
    }
}

async fn unary(rules: &Handlers, cached: &Handlers, data: &[u8]) {
    if let Ok(request) = wire::ValidateGameRequest::decode(data) {
        let answer = rules.validate_game(Request::new(request.clone())).await;
        match &answer {
            Ok(response) => check_game(&request, response.get_ref()),
            Err(status) => check_error(status),
        }
        let again = cached.validate_game(Request::new(request)).await;
        same(&answer.map(Response::into_inner), &again.map(Response::into_inner));
    }
    if let Ok(request) = wire::LegalMovesRequest::decode(data) {
        let answer = rules.legal_moves(Request::new(request.clone())).await;
        match &answer {
            Ok(response) => assert!(response.get_ref().position.is_some()),
            Err(status) => check_error(status),
        }
        let again = cached.legal_moves(Request::new(request)).await;
        same(&answer.map(Response::into_inner), &again.map(Response::into_inner));
    }
    if let Ok(request) = proto::PerftRequest::decode(data) {
        let depth = request.depth;
        match rules.perft(Request::new(request)).await {
            Ok(response) => {
                let proto::PerftResponse { nodes, divide } = response.into_inner();
                if depth > 0 && !divide.is_empty() {
                    assert_eq!(nodes, divide.iter().map(|d| d.nodes).sum::<u64>());
                }
            }
            Err(status) => check_error(&status),
        }
    }
}

async fn stream(rules: &Handlers, data: &[u8]) {
    let body = http_body_util::Full::new(frames(&[data, data]));
    let decoder =
        ArbiterCodec::<wire::StreamAnswer, wire::ValidateGamesRequest>::default().decoder();
    let requests = Streaming::new_request(decoder, body, None, Some(1 << 20));
    let expected = wire::ValidateGamesRequest::decode(data).ok();
    let responses = match rules.validate_games(Request::new(requests)).await {
        Ok(responses) => responses.into_inner(),
        Err(status) => return check_error(&status),
    };
    let answers: Vec<_> = responses.collect().await;
    let Some(request) = expected else {
        // Undecodable: the stream ends at once with the codec's error.
        assert_eq!(answers.len(), 1);
        return check_error(answers[0].as_ref().expect_err("a decode error"));
    };
    assert_eq!(answers.len(), 2);
    for answer in answers {
        let answer = answer.expect("a decodable game gets an answer");
        assert_eq!(answer.id, request.id);
        match answer.result {
            wire::StreamResult::Game(game) => {
                check_game(request.game.as_ref().expect("a game"), &game)
            }
            wire::StreamResult::Error(error) => {
                assert_eq!(error.code, "INVALID_ARGUMENT");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (rules, cached) = services();
    runtime().block_on(async {
        unary(rules, cached, data).await;
        stream(cached, data).await;
    });
});
