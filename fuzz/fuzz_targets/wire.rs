//! The hand-written decoders of `api::wire` against prost's generated ones:
//! any bytes decode with both or with neither, and to the same message.
#![no_main]

use arbiter::api::codec::Decode;
use arbiter::api::wire;
use arbiter::proto;
use libfuzzer_sys::fuzz_target;
use prost::Message;

/// `data` read as `W` by hand and as `P` by prost: the same outcome.
fn same<W, P>(data: &[u8])
where
    W: Decode + PartialEq + std::fmt::Debug + From<P>,
    P: Message + Default + std::fmt::Debug,
{
    match (W::decode(data), P::decode(data)) {
        (Ok(by_hand), Ok(generated)) => assert_eq!(by_hand, W::from(generated)),
        (Err(_), Err(_)) => {}
        (by_hand, generated) => panic!("by hand {by_hand:?}, by prost {generated:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    same::<wire::ValidateGameRequest, proto::ValidateGameRequest>(data);
    same::<wire::ValidateGamesRequest, proto::ValidateGamesRequest>(data);
    same::<wire::LegalMovesRequest, proto::LegalMovesRequest>(data);
});
