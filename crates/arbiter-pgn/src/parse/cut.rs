//! The cutter: the parser run over the start of a stream's text to read
//! its first game and find where that game ends, in one pass.

use super::parser::{Parser, read_after_tags};
use super::{Keep, KnownTags, Parsed, Spare, keep};

/// Where the game at the start of a stream's text ends.
pub(crate) enum Cut {
    /// The game, read, and the length of its text.
    Game(Parsed, usize),
    /// The text may go on: more is needed to tell.
    More,
    /// The movetext begins on a line with a tag (`[A "x"] 1. e4`): where
    /// such a game ends is for the line-by-line rules to say.
    ByLines,
}

/// Reads the game at the start of `text` (whole lines; the last may lack
/// its end only `at_end`, at the end of the stream) and finds where it
/// ends, in one pass: the end of the line of its result token outside
/// comments and variations, or the start of a tag line after its movetext,
/// or (tags only) of a tag line repeating one of its tags after a blank
/// line, or the end of the stream.
///
/// `BUILD` off, the game is not kept (its [`Parsed`] is empty): the end is
/// found the same way, for a caller that reads the game elsewhere. `kept`
/// says what of the game is kept beyond what its check needs.
pub(crate) fn cut_game<const BUILD: bool>(
    text: &[u8],
    at_end: bool,
    kept: Keep,
    spare: &mut Spare,
) -> Cut {
    let mut parser = Parser::<BUILD>::new(text, true, kept, spare);
    let mut known = KnownTags::default();
    let mut tags = Vec::new();
    if BUILD {
        tags = std::mem::take(&mut spare.tags);
        // Room for the tags of nearly every game at once (lichess writes
        // 17 or 18), rather than growing through four reallocations.
        tags.reserve(24);
    }
    let mut first = true;
    while let Some((name, value)) = parser.tag(first) {
        first = false;
        if BUILD {
            known.note(name.bytes(text), value);
            if kept.tags {
                tags.push((name, value));
            }
        }
    }
    if parser.stop.is_none()
        && parser.pos < text.len()
        && parser.line_start_before(parser.pos).is_none()
    {
        parser.give_back(spare);
        keep(&mut spare.tags, tags);
        return Cut::ByLines;
    }
    let parts = read_after_tags(&mut parser, tags, known);
    let end = match (parser.stop, parts.result_token) {
        (Some(stop), _) => Some(stop),
        (None, Some(_)) => match memchr::memchr(b'\n', &text[parser.pos..]) {
            Some(k) => Some(parser.pos + k + 1),
            None if at_end => Some(text.len()),
            None => None,
        },
        (None, None) if at_end => Some(text.len()),
        (None, None) => None,
    };
    parser.give_back(spare);
    match end {
        Some(end) => Cut::Game(parts, end),
        None => {
            spare.give_back(parts);
            Cut::More
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_game;
    use crate::parse::tests::{game, moves};

    /// Found by the `pgn` fuzz target: a form feed before the next game's
    /// tag line was read as a move of the game cut before it.
    #[test]
    fn a_form_feed_before_the_next_tag_line_is_whitespace() {
        let text = b"[Event \"a\"]\n\n1. f3 e5\n\x0c[Event \"b\"]\n\n1. e4 *\n";
        let Cut::Game(parsed, end) = cut_game::<true>(text, true, Keep::ALL, &mut Spare::default())
        else {
            panic!("a game")
        };
        assert_eq!(&text[end..end + 2], b"\x0c[");
        assert_eq!(parsed.with_text(text[..end].to_vec()), parse_game(text[..end].to_vec()));
        let g = game("1. e4 \x0c e5 *");
        assert_eq!(moves(&g, &g.mainline), ["e4", "e5"]);
    }
}
