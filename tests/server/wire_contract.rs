//! The messages `api::wire` reads by hand, held to the contract's compiled
//! descriptor: every field of each request message, with its number, type
//! and label as the descriptor gives them, reads back exactly as the
//! generated (prost) message reads it. A field added to the contract that
//! the hand-written decoder skips, or a field whose type changed, fails
//! here. (The answers it writes are held to the generated code byte for
//! byte by the unit tests in `api::wire` and by tests/server/cache.rs.)

use arbiter::api::wire;
use arbiter::proto;
use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};

/// The descriptor of `arbiter.v1.<name>`.
fn descriptor(name: &str) -> DescriptorProto {
    let set = FileDescriptorSet::decode(proto::FILE_DESCRIPTOR_SET).expect("the descriptor set");
    set.file
        .iter()
        .filter(|file| file.package() == "arbiter.v1")
        .flat_map(|file| &file.message_type)
        .find(|message| message.name() == name)
        .cloned()
        .unwrap_or_else(|| panic!("the contract has no message {name}"))
}

/// A value of `field` that is not its default, in the wire format: twice
/// for a repeated field.
fn sample(message: &str, field: &FieldDescriptorProto) -> Vec<u8> {
    let number = u32::try_from(field.number()).expect("a positive field number");
    let mut bytes = Vec::new();
    let times = if field.label() == Label::Repeated { 2 } else { 1 };
    for _ in 0..times {
        match field.r#type() {
            Type::String => {
                encode_key(number, WireType::LengthDelimited, &mut bytes);
                encode_varint(2, &mut bytes);
                bytes.extend_from_slice(b"e4");
            }
            Type::Bool | Type::Enum | Type::Int32 | Type::Uint32 | Type::Int64 | Type::Uint64 => {
                encode_key(number, WireType::Varint, &mut bytes);
                encode_varint(1, &mut bytes);
            }
            // An empty nested message: present, with its fields at their
            // defaults (its own fields are checked as a message of their own).
            Type::Message => {
                encode_key(number, WireType::LengthDelimited, &mut bytes);
                encode_varint(0, &mut bytes);
            }
            other => panic!("{message}.{}: no sample of a {other:?} field here", field.name()),
        }
    }
    bytes
}

/// Each field of `name` alone, then all of them: the hand-written message
/// `W` decodes the bytes to what `From` makes of the generated message `P`.
fn reads_as_the_contract_says<W, P>(name: &str)
where
    W: arbiter::api::codec::Decode + PartialEq + std::fmt::Debug + From<P>,
    P: Message + Default,
{
    let message = descriptor(name);
    assert!(!message.field.is_empty());
    let mut all = Vec::new();
    for field in &message.field {
        let bytes = sample(name, field);
        all.extend_from_slice(&bytes);
        let generated = P::decode(&bytes[..]).expect("prost reads the sample");
        assert_ne!(generated.encoded_len(), 0, "{name}.{}: the sample is a default", field.name());
        let by_hand = W::decode(&bytes[..]).unwrap_or_else(|error| {
            panic!("{name}.{} ({:?}): {error}", field.name(), field.r#type())
        });
        assert_eq!(
            by_hand,
            W::from(generated),
            "{name}.{} (number {}, {:?}, {:?}) is not read as the contract says",
            field.name(),
            field.number(),
            field.r#type(),
            field.label()
        );
    }
    let generated = P::decode(&all[..]).unwrap();
    assert_eq!(W::decode(&all[..]).unwrap(), W::from(generated), "{name}, every field at once");
}

#[test]
fn validate_game_request_reads_every_field_of_the_contract() {
    reads_as_the_contract_says::<wire::ValidateGameRequest, proto::ValidateGameRequest>(
        "ValidateGameRequest",
    );
}

#[test]
fn validate_games_request_reads_every_field_of_the_contract() {
    reads_as_the_contract_says::<wire::ValidateGamesRequest, proto::ValidateGamesRequest>(
        "ValidateGamesRequest",
    );
}

#[test]
fn legal_moves_request_reads_every_field_of_the_contract() {
    reads_as_the_contract_says::<wire::LegalMovesRequest, proto::LegalMovesRequest>(
        "LegalMovesRequest",
    );
}
