package grammar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

// The parser's bounds. A shared skill comes from anyone, and opening one
// must not cost its reader seconds and gigabytes: before these bounds a
// 2 MB assert holding a million-segment path took 4.9 s and 1.5 GB. Each
// bound is far beyond what a person or the compiler writes, and each is
// a rejection at the place it is crossed (SPEC.md §8).
const (
	// maxPathSegments bounds a json path (json.a.b.0 has three).
	maxPathSegments = 256
	// maxExprLen bounds an assert or bind expression, in bytes.
	maxExprLen = 64 << 10
	// maxJSONDepth bounds the nesting of an action's arguments.
	maxJSONDepth = 128
	// maxTokens bounds the tokens the lexer makes of one line: an
	// expression within the other bounds has fewer (a path of
	// maxPathSegments segments is twice as many, and a few more make the
	// rest of any form), so a line of nothing but symbols or words stops
	// here instead of becoming a token per byte for participle to wade
	// through.
	maxTokens = 2*maxPathSegments + 16
	// maxSelTokens bounds the tokens of a selection line, which holds
	// several paths (the source, each condition's key, the ordering key,
	// the trailing path), each of up to maxPathSegments segments.
	maxSelTokens = 8*maxPathSegments + 64
	// maxFrontmatterKeys and maxFrontmatterBrackets bound what the
	// frontmatter's YAML reading costs (fmBudget).
	maxFrontmatterKeys     = 64
	maxFrontmatterBrackets = 1024
	maxFrontmatterItems    = 4096
	// maxProblems is how many diagnostics the parser makes before it
	// stops reading (docParser.tooMany).
	maxProblems = 1000
)

var (
	msgPathTooLong = fmt.Sprintf("JSON path has %%s segments — at most %d are allowed", maxPathSegments)
	msgExprTooLong = fmt.Sprintf("Expression is %%s bytes long — an assert or bind may have at most %d", maxExprLen)
	msgJSONTooDeep = fmt.Sprintf("Action args nest deeper than %d levels", maxJSONDepth)
)

const msgFrontmatterTooLarge = "Frontmatter is too large to read: %s — Agent Skills frontmatter is a few short keys"

var msgTooManyProblems = fmt.Sprintf("More than %d problems — the file is not read past this line", maxProblems)

// msgFileTooLarge refuses a file whose offsets do not fit the tree's
// positions (ast.MaxFileSize, 2 GiB): nothing of it is read.
var msgFileTooLarge = fmt.Sprintf("File is %%s bytes long — a skill may be at most %d bytes", ast.MaxFileSize)

// errTooManyTokens is the lexer's refusal of a line of more than
// maxTokens tokens.
var errTooManyTokens = errors.New("more than " + strconv.Itoa(maxTokens) + " words and symbols, more than any assert or bind form has")

// checkSize refuses an expression over the bounds before it is lexed: a
// path of too many segments (reported from its first segment past the
// bound to its end) or an expression too long (reported whole). bind says
// the expression is a bind, whose path follows `<name> =`.
func checkSize(src string, bind bool) *exprError {
	start := 0
	if bind {
		eq := strings.IndexByte(src, '=')
		if eq < 0 {
			start = -1
		} else {
			start = eq + 1 + len(src[eq+1:]) - len(strings.TrimLeft(src[eq+1:], " \t"))
		}
	}
	if start >= 0 && strings.HasPrefix(src[start:], "json") {
		n, at, end := 0, 0, start+len("json")
		for end < len(src) && src[end] == '.' {
			j := end + 1
			for j < len(src) && words.IsIdentByte(src[j]) {
				j++
			}
			if j == end+1 {
				break
			}
			if n++; n == maxPathSegments+1 {
				at = end + 1
			}
			end = j
		}
		if n > maxPathSegments {
			return &exprError{code: CodeJSONPathTooLong, msg: fmt.Sprintf(msgPathTooLong, strconv.Itoa(n)), at: at, end: end}
		}
	}
	if len(src) > maxExprLen {
		return &exprError{code: CodeExprTooLong, msg: fmt.Sprintf(msgExprTooLong, strconv.Itoa(len(src))), end: len(src)}
	}
	return nil
}

// errTooManySelTokens is the selection lexer's refusal of a line of more
// than maxSelTokens tokens.
var errTooManySelTokens = errors.New("more than " + strconv.Itoa(maxSelTokens) + " words and symbols in one selection")
