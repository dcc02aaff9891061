//! The vocabulary of the board: colours, roles, pieces, files, ranks and squares.

use std::fmt;
use std::str::FromStr;

/// One of the two sides.
///
/// ```
/// use arbiter_chess::Color;
/// assert_eq!(!Color::White, Color::Black);
/// assert_eq!(Color::Black.fold('w', 'b'), 'b');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// Index for tables indexed by colour.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Picks `white` or `black` by colour.
    #[inline]
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }

    /// The colour's first rank, where its king and rooks start.
    #[inline]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }

    /// The lower-case English name, as `"white"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// The kind of a piece, without its colour.
///
/// ```
/// use arbiter_chess::Role;
/// assert_eq!(Role::from_char('n'), Some(Role::Knight));
/// assert_eq!(Role::Queen.upper_char(), 'Q');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] =
        [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

    /// The roles a pawn may promote to, strongest first.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// Index for tables indexed by role.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Reads a piece letter in either case.
    pub const fn from_char(c: char) -> Option<Role> {
        Some(match c {
            'p' | 'P' => Role::Pawn,
            'n' | 'N' => Role::Knight,
            'b' | 'B' => Role::Bishop,
            'r' | 'R' => Role::Rook,
            'q' | 'Q' => Role::Queen,
            'k' | 'K' => Role::King,
            _ => return None,
        })
    }

    /// The lower-case letter, as UCI writes promotions.
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// The upper-case letter, as SAN writes pieces.
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// The lower-case English name, as `"knight"`.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }
}

/// A piece: a role of a colour.
///
/// ```
/// use arbiter_chess::{Color, Piece, Role};
/// let p = Piece::from_char('q').unwrap();
/// assert_eq!(p, Piece { color: Color::Black, role: Role::Queen });
/// assert_eq!(p.char(), 'q');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    /// Reads a FEN piece letter: upper case is white.
    pub const fn from_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        match Role::from_char(c) {
            Some(role) => Some(Piece { color, role }),
            None => None,
        }
    }

    /// The FEN letter: upper case for white.
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }
}

/// A file (column), `a` to `h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum File {
    A = 0,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

impl File {
    /// All files, `a` first.
    pub const ALL: [File; 8] =
        [File::A, File::B, File::C, File::D, File::E, File::F, File::G, File::H];

    /// The file with this index (0 is `a`), if any.
    #[inline]
    pub const fn new(index: u32) -> Option<File> {
        if index < 8 { Some(File::ALL[index as usize]) } else { None }
    }

    /// Reads a lower-case file letter.
    pub const fn from_char(c: char) -> Option<File> {
        if c >= 'a' && c <= 'h' { File::new(c as u32 - 'a' as u32) } else { None }
    }

    /// Index, 0 for `a`.
    #[inline]
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The lower-case letter.
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }
}

/// A rank (row), `1` to `8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    First = 0,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    /// All ranks, the first first.
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with this index (0 is the first), if any.
    #[inline]
    pub const fn new(index: u32) -> Option<Rank> {
        if index < 8 { Some(Rank::ALL[index as usize]) } else { None }
    }

    /// Reads a rank digit.
    pub const fn from_char(c: char) -> Option<Rank> {
        if c >= '1' && c <= '8' { Rank::new(c as u32 - '1' as u32) } else { None }
    }

    /// Index, 0 for the first rank.
    #[inline]
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The digit.
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// The same rank seen from `color`'s side: `relative(First)` is the back rank.
    #[inline]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::ALL[7 - self as usize],
        }
    }
}

/// A square of the board, `a1` = 0 to `h8` = 63.
///
/// ```
/// use arbiter_chess::{File, Rank, Square};
/// let sq: Square = "e4".parse().unwrap();
/// assert_eq!(sq, Square::from_coords(File::E, Rank::Fourth));
/// assert_eq!(sq.to_string(), "e4");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

macro_rules! square_consts {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(
                #[doc = concat!("The square ", stringify!($name), ".")]
                pub const $name: Square = Square($idx);
            )*
        }
    };
}

square_consts! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// The square with this index, if it is below 64.
    #[inline]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 { Some(Square(index as u8)) } else { None }
    }

    /// The square with index `index & 63`: for indices known to be in range.
    #[inline]
    pub(crate) const fn from_index_masked(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// The square on `file` and `rank`.
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square((rank as u8) * 8 + file as u8)
    }

    /// The square named by a file letter (`a` to `h`) and a rank digit (`1`
    /// to `8`), as notation writes it.
    #[inline]
    pub(crate) const fn from_name(file: u8, rank: u8) -> Option<Square> {
        let (file, rank) = (file.wrapping_sub(b'a'), rank.wrapping_sub(b'1'));
        if file < 8 && rank < 8 { Some(Square(rank * 8 + file)) } else { None }
    }

    /// Index, 0 for `a1` and 63 for `h8`.
    #[inline]
    pub const fn index(self) -> usize {
        // The mask is a no-op (squares are below 64) that lets the compiler
        // drop bounds checks on tables of 64 entries.
        (self.0 & 63) as usize
    }

    /// The square's file.
    #[inline]
    pub const fn file(self) -> File {
        File::ALL[(self.0 & 7) as usize]
    }

    /// The square's rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 >> 3) as usize]
    }

    /// The square `delta` steps further along the index order, if on the board.
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 { Some(Square(i as u8)) } else { None }
    }

    /// The same file, mirrored rank (`e2` becomes `e7`).
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Whether the square is light (`h1` is light).
    #[inline]
    pub const fn is_light(self) -> bool {
        (self.0 / 8 + self.0 % 8) % 2 == 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The text was not a square name such as `e4`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square name")]
pub struct ParseSquareError;

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(f), Some(r)) => Ok(Square::from_coords(f, r)),
                _ => Err(ParseSquareError),
            },
            _ => Err(ParseSquareError),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for i in 0..64 {
            let sq = Square::new(i).unwrap();
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert!("a1 ".parse::<Square>().is_err());
    }

    #[test]
    fn square_colours() {
        assert!(!Square::A1.is_light());
        assert!(Square::H1.is_light());
        assert!(Square::D1.is_light());
        assert!(!Square::E1.is_light());
    }

    #[test]
    fn relative_ranks() {
        assert_eq!(Rank::Second.relative_to(Color::Black), Rank::Seventh);
        assert_eq!(Rank::Second.relative_to(Color::White), Rank::Second);
    }
}
