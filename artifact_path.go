package automium

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/winname"
	"golang.org/x/text/unicode/norm"
)

// An artifact manifest is a contract that other tools resolve on other systems:
// a Linux worker writes the files, a Windows or macOS reviewer downloads them, a
// web viewer links to them. So a path is accepted only when it is a safe relative
// path under the root for all of them at once: a POSIX path, a Windows path and
// a URL path. A name that is harmless on Linux can leave the root, or open a
// device, elsewhere.

// artifactPathPattern is the part of the path rules a JSON Schema pattern can
// say, in syntax that Go's RE2 and ECMAScript read alike: segments of allowed
// characters, separated by single slashes, each ending in a character that is
// not a dot or a space (which also rules out . and ..). Every path the server
// accepts matches it, and it refuses traversal, absolute paths and unsafe
// characters, so a client that checks the advertised schema catches those
// itself; what it cannot say (device names, Unicode normalization, invisible
// characters) the server checks. FuzzArtifactPath holds the two together.
const artifactPathPattern = `^[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f]*[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f. ](/[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f]*[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f. ])*$`

var _ = registerPattern("automium_artifact_path", artifactPathPattern, echo.Msg("a relative artifact path such as attempt-1/trace.zip"))

// unsafePathChars are characters one of the consumers reads as syntax: Windows
// forbids <>:"|?* in names and reads : as a drive or a stream, a URL ends its
// path at ? or #, and a URL resolver decodes %2e%2e into ..
const unsafePathChars = `<>:"|?*#%`

// artifactPathProblem explains why p is not a safe
// relative artifact path, and reports whether it is not. Accepted paths are
// exactly those equal to their own path.Clean that neither start with / nor
// contain a . or .. segment, and that no Windows, macOS or URL resolver can
// read otherwise: no backslashes, drive letters, URL schemes or characters of
// unsafePathChars; no control, invisible or blank characters (see
// isInvisible); nothing Unicode compatibility normalization changes (a
// fullwidth ．．／ folds into ../); no Windows device names (CON, aux.txt, COM1,
// CLOCK$) and no segment ending in a dot or a space, which Windows strips.
func artifactPathProblem(p string) (echo.Message, bool) {
	const fix = "; use a relative POSIX path such as attempt-1/trace.zip"
	q := echo.Value(p)
	bad := func(format string, args ...any) (echo.Message, bool) {
		return echo.Msg(format+fix, append([]any{q}, args...)...), true
	}
	switch {
	case p == "":
		return echo.Msg("is empty" + fix), true
	case !utf8.ValidString(p):
		return bad("%s is not valid UTF-8")
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return bad("%s contains a NUL or other control character")
	case strings.IndexFunc(p, isInvisible) >= 0:
		r, _ := utf8.DecodeRuneInString(p[strings.IndexFunc(p, isInvisible):])
		return bad("%s contains U+%04X, an invisible, blank or line-breaking character (such as a bidi override, a zero-width space, a variation selector or a Hangul filler), which makes it read as another path", r)
	case strings.IndexFunc(p, notGraphic) >= 0:
		r, _ := utf8.DecodeRuneInString(p[strings.IndexFunc(p, notGraphic):])
		return bad("%s contains U+%04X, which is unassigned, private-use or a noncharacter: it has no meaning every system agrees on, and a later Unicode version may make it invisible or normalize it", r)
	case strings.IndexFunc(p, isSeparatorLookalike) >= 0:
		r, _ := utf8.DecodeRuneInString(p[strings.IndexFunc(p, isSeparatorLookalike):])
		return bad("%s contains U+%04X, which looks like %s, so the path reads as other segments than it has", r, separatorLookalikes[r])
	case !norm.NFKC.IsNormalString(p):
		return bad("%s contains characters that Unicode compatibility normalization changes (such as fullwidth dots or slashes), which another system can fold into . / \\ or :; write the plain characters")
	case strings.ContainsRune(p, '\\'):
		return bad("%s contains a backslash; separate segments with /")
	case len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'):
		return bad("%s starts with a drive letter; artifact paths are relative to the root")
	case hasScheme(p):
		return bad("%s starts with a URL scheme; artifact paths are file paths under the root, not URLs")
	case p[0] == '/':
		return bad("%s is absolute; artifact paths are relative to the root")
	case strings.ContainsRune(p, ':'):
		return bad("%s contains a colon, which Windows reads as a drive or an alternate data stream")
	case strings.ContainsAny(p, unsafePathChars):
		return bad("%s contains one of %s, which Windows forbids in names or a URL reads as a query, fragment or escape (%%2e%%2e decodes to ..)", unsafePathChars)
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			return bad("%s has an empty segment (// or a trailing /)")
		case len(seg) > maxSegmentBytes:
			return bad("%s has a segment of %d bytes; file systems store names of at most %d bytes (ext4) or 255 UTF-16 units (NTFS, APFS), so shorten it", len(seg), maxSegmentBytes)
		case unicode.Is(unicode.M, firstRune(seg)):
			return bad("%s has a segment that starts with a combining mark, which draws onto the slash before it; start each segment with a base character")
		case seg == "..":
			return bad("%s has a .. segment, which could leave the root")
		case seg == ".":
			return bad("%s has a . segment; write the path without it")
		case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
			return bad("%s has a segment ending in a dot or a space, which Windows strips, so it names another file there")
		case strings.HasPrefix(seg, " "):
			return bad("%s has a segment starting with a space, which a reader does not see after the slash; remove it")
		case winname.Reserved(seg):
			return bad("%s has a segment Windows reserves for a device (CON, PRN, AUX, NUL, CLOCK$, CONIN$, CONOUT$, COM0-9, LPT0-9, COM or LPT with ¹²³; in any case, with any extension)")
		}
	}
	return echo.Message{}, false
}

// isInvisible reports the characters that change how a path reads without
// being seen, or that are seen as blank or as a line break. It is a superset
// of Unicode's derived property Default_Ignorable_Code_Point
// (DerivedCoreProperties.txt defines it as Other_Default_Ignorable_Code_Point
// + Cf + Variation_Selector - White_Space - U+FFF9..U+FFFB - U+13430..U+1343F
// - Prepended_Concatenation_Mark), built from the tables of package unicode,
// which follow the Unicode version of the Go release:
//   - Other_Default_Ignorable_Code_Point: U+034F, the Hangul fillers U+115F,
//     U+1160, U+3164, U+FFA0, U+17B4, U+17B5, the reserved U+2065, the tag
//     range's unassigned code points, ...;
//   - Cf, whole: bidi overrides and isolates, zero-width spaces and joiners,
//     the byte order mark, and also the characters the derived property
//     subtracts (interlinear annotations, hieroglyph format controls,
//     prepended concatenation marks), which are no more visible in a name;
//   - Variation_Selector: U+FE00..U+FE0F, U+180B..U+180D, U+180F,
//     U+E0100..U+E01EF;
//   - White_Space other than the ASCII space (U+2028 and U+2029 break a line;
//     the others NFKC changes or a reader takes for a space) and U+2800
//     BRAILLE PATTERN BLANK, which is not ignorable but renders blank.
func isInvisible(r rune) bool {
	return r != ' ' && r >= 0x80 && (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.White_Space, r) || r == '\u2800')
}

// maxSegmentBytes is the longest segment a file system stores: ext4 and most
// Linux file systems allow 255 bytes of a name (NAME_MAX), NTFS and APFS 255
// UTF-16 code units. A UTF-8 string never has more UTF-16 units than bytes,
// so 255 bytes is within both. It is a rule of the file systems a path must
// fit, like the Windows device names, not an input bound of limits.go: it
// counts bytes because ext4 does, where those bounds count characters.
const maxSegmentBytes = 255

// notGraphic reports the code points outside Unicode's graphic categories
// (letters, marks, numbers, punctuation, symbols and the space separator):
// controls, format characters and line separators, which earlier cases name,
// and the ones no one agrees on, namely unassigned code points and
// noncharacters (Cn) and private use (Co). An unassigned code point may
// become a Default_Ignorable_Code_Point or gain a compatibility mapping in a
// later Unicode version, so a path accepted today would read otherwise then.
func notGraphic(r rune) bool { return !unicode.IsGraphic(r) }

// separatorLookalikes are the symbols and punctuation that Unicode's
// confusables data (UTS #39, confusables.txt) maps to a character a reader
// splits a path on: the slash, the backslash and the colon. Lookalikes that
// compatibility normalization folds (fullwidth ／ ＼ ：, small ﹨ ﹕) are
// refused by the NFKC case already; letters of a script (katakana ノ, CJK 丿)
// are not listed, since they are ordinary text in their script.
var separatorLookalikes = map[rune]string{
	'\u2041': "a slash", '\u2044': "a slash", '\u2215': "a slash", '\u2571': "a slash", '\u27cb': "a slash",
	'\u29f8': "a slash", '\u31d3': "a slash", '\U0001d23a': "a slash",
	'\u2216': "a backslash", '\u2572': "a backslash", '\u27cd': "a backslash", '\u29f5': "a backslash",
	'\u29f9': "a backslash", '\u31d4': "a backslash", '\U0001d20f': "a backslash",
	'\u0589': "a colon", '\u05c3': "a colon", '\u0703': "a colon", '\u0704': "a colon", '\u16ec': "a colon",
	'\u1803': "a colon", '\u1809': "a colon", '\u205a': "a colon", '\u2236': "a colon", '\ua789': "a colon",
}

func isSeparatorLookalike(r rune) bool { _, ok := separatorLookalikes[r]; return ok }

// firstRune returns the first rune of s, which is not empty.
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// pathKey is what two paths that name one file on a case-insensitive system
// (Windows, macOS) have in common. Accepted paths are already NFKC-normal, so
// only case remains to be folded.
func pathKey(p string) string { return strings.ToLower(strings.ToUpper(p)) }
