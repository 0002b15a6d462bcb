package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// UserFile is the user's price file, under the user configuration folder
// (os.UserConfigDir: $XDG_CONFIG_HOME or ~/.config on Linux,
// ~/Library/Application Support on macOS, %AppData% on Windows).
const UserFile = "reelier/prices.json"

// MaxFileSize bounds a price file; a larger one is refused unread.
const MaxFileSize = 1 << 20

// UserPath is where the user's price file is looked for.
func UserPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, UserFile), nil
}

// Load is the built-in table with the user's price file merged over it,
// model by model, when that file exists. A file that cannot be read or
// is malformed is an error naming it (path:line:col for a mistake in it);
// with no configuration folder the built-in table is used alone.
func Load() (*Table, error) {
	t := Builtin()
	path, err := UserPath()
	if err != nil {
		return t, nil
	}
	if err := t.MergeFile(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return t, nil
}

// MergeFile reads a price file and merges its models over t's: a model
// it names takes the file's prices whole; the others keep theirs. On an
// error t is unchanged.
func (t *Table) MergeFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return fmt.Errorf("reading the price file %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("%s: the price file is larger than %d bytes", path, MaxFileSize)
	}
	return t.merge(data, path, false)
}

// Merge merges a price file's bytes over t, as MergeFile does; name
// names them in errors.
func (t *Table) Merge(data []byte, name string) error { return t.merge(data, name, false) }

// Error is a mistake in a price file, at a line and column (counted in
// characters from 1).
type Error struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg) }

// fileModel is one model as a price file writes it.
type fileModel struct {
	name  string
	price Price
}

// merge parses data (named name in errors) and, when it is well formed,
// puts its models into t.
func (t *Table) merge(data []byte, name string, isBuiltin bool) error {
	p := &parser{data: data, name: name, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	taken, source, models, err := p.file()
	if err != nil {
		return err
	}
	if isBuiltin {
		t.Taken, t.Source = taken, source
	}
	from := name
	if taken != "" {
		from += ", taken " + taken
	}
	for _, m := range models {
		m.price.From = from
		t.models[m.name] = m.price
	}
	return nil
}

// errEnd is the end of the input where a token might follow.
var errEnd = errors.New("end of file")

// parser walks a price file token by token, so that every mistake is
// reported where it is.
type parser struct {
	data []byte
	name string
	dec  *json.Decoder
}

// errAt is an Error at byte offset off (moved past blanks, colons and
// commas to the token that starts there).
func (p *parser) errAt(off int64, format string, args ...any) error {
	for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n:,", p.data[off]) >= 0 {
		off++
	}
	return p.errHere(off, format, args...)
}

// errHere is an Error at byte offset off exactly.
func (p *parser) errHere(off int64, format string, args ...any) error {
	line, col := 1, 1
	for _, r := range string(p.data[:min(off, int64(len(p.data)))]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Error{Path: p.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// next reads a token and the offset it starts at (before blanks); the
// end of the input is an error there.
func (p *parser) next() (json.Token, int64, error) {
	tok, off, err := p.raw()
	if errors.Is(err, errEnd) {
		if len(bytes.TrimSpace(p.data)) == 0 {
			return nil, off, p.errHere(0, "the price file is empty")
		}
		return nil, off, p.errAt(int64(len(p.data)), "the file ends early")
	}
	return tok, off, err
}

// raw reads a token and the offset it starts at; errEnd at the end.
func (p *parser) raw() (json.Token, int64, error) {
	off := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, off, p.errHere(se.Offset, "malformed JSON: %v", se)
		case errors.Is(err, io.EOF):
			return nil, off, errEnd
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, off, p.errAt(int64(len(p.data)), "the file ends early")
		}
		return nil, off, p.errAt(off, "%v", err)
	}
	return tok, off, nil
}

// open reads the opening delimiter of an object.
func (p *parser) open(what string) error {
	tok, off, err := p.next()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return p.errAt(off, "%s must be a JSON object, got %s", what, describe(tok))
	}
	return nil
}

// key reads the next member name of an object; end is set at its
// closing brace.
func (p *parser) key() (name string, end bool, off int64, err error) {
	tok, off, err := p.next()
	if err != nil {
		return "", false, off, err
	}
	if d, ok := tok.(json.Delim); ok && d == '}' {
		return "", true, off, nil
	}
	name, _ = tok.(string)
	return name, false, off, nil
}

// str reads a string value.
func (p *parser) str(what string) (string, error) {
	tok, off, err := p.next()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", p.errAt(off, "%s must be a string, got %s", what, describe(tok))
	}
	if !utf8.ValidString(s) {
		return "", p.errAt(off, "%s is not valid UTF-8", what)
	}
	return s, nil
}

func (p *parser) file() (taken, source string, models []fileModel, err error) {
	if err = p.open("a price file"); err != nil {
		return
	}
	seen := map[string]bool{}
	for {
		k, end, off, e := p.key()
		if e != nil {
			return "", "", nil, e
		}
		if end {
			break
		}
		if seen[k] {
			return "", "", nil, p.errAt(off, "%q appears twice", k)
		}
		seen[k] = true
		switch k {
		case "taken":
			taken, err = p.str(`"taken"`)
		case "source":
			source, err = p.str(`"source"`)
		case "note":
			_, err = p.str(`"note"`)
		case "models":
			models, err = p.models()
		default:
			err = p.errAt(off, "unknown key %q: a price file has taken, source, note and models", k)
		}
		if err != nil {
			return "", "", nil, err
		}
	}
	if p.dec.More() {
		return "", "", nil, p.errAt(p.dec.InputOffset(), "text after the price file's closing brace")
	}
	if _, off, e := p.raw(); e == nil {
		return "", "", nil, p.errAt(off, "text after the price file's closing brace")
	} else if !errors.Is(e, errEnd) {
		return "", "", nil, e
	}
	return taken, source, models, nil
}

func (p *parser) models() ([]fileModel, error) {
	if err := p.open(`"models"`); err != nil {
		return nil, err
	}
	var out []fileModel
	seen := map[string]bool{}
	for {
		name, end, off, err := p.key()
		if err != nil {
			return nil, err
		}
		if end {
			return out, nil
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			return nil, p.errAt(off, "a model's name must not be empty")
		}
		if seen[name] {
			return nil, p.errAt(off, "model %q appears twice", name)
		}
		seen[name] = true
		price, err := p.model(name, off)
		if err != nil {
			return nil, err
		}
		out = append(out, fileModel{name: name, price: price})
	}
}

func (p *parser) model(name string, at int64) (Price, error) {
	if err := p.open(fmt.Sprintf("model %q", name)); err != nil {
		return Price{}, err
	}
	var pr Price
	seen := map[string]bool{}
	for {
		k, end, off, err := p.key()
		if err != nil {
			return Price{}, err
		}
		if end {
			break
		}
		if seen[k] {
			return Price{}, p.errAt(off, "%q appears twice in model %q", k, name)
		}
		seen[k] = true
		var dst **big.Rat
		switch k {
		case "input":
			dst = &pr.Input
		case "output":
			dst = &pr.Output
		case "cacheRead":
			dst = &pr.CacheRead
		case "cacheWrite":
			dst = &pr.CacheWrite
		case "source":
			if _, err := p.str(`"source"`); err != nil {
				return Price{}, err
			}
			continue
		default:
			return Price{}, p.errAt(off, "unknown key %q in model %q: a model has input, output, cacheRead, cacheWrite and source", k, name)
		}
		if *dst, err = p.amount(fmt.Sprintf("%s's %s price", name, k)); err != nil {
			return Price{}, err
		}
	}
	if pr.Input == nil || pr.Output == nil {
		return Price{}, p.errAt(at, "model %q needs both an input and an output price (US dollars per million tokens)", name)
	}
	return pr, nil
}

// amount reads a price: a non-negative decimal, as a JSON number or
// string ("3.75").
func (p *parser) amount(what string) (*big.Rat, error) {
	tok, off, err := p.next()
	if err != nil {
		return nil, err
	}
	var text string
	switch v := tok.(type) {
	case json.Number:
		text = string(v)
	case string:
		text = strings.TrimSpace(v)
	default:
		return nil, p.errAt(off, "%s must be a number of US dollars per million tokens, got %s", what, describe(tok))
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || strings.ContainsAny(text, "/") {
		return nil, p.errAt(off, "%s is %q, not a decimal number of US dollars per million tokens", what, text)
	}
	if r.Sign() < 0 {
		return nil, p.errAt(off, "%s is negative (%s)", what, text)
	}
	if r.Cmp(big.NewRat(1_000_000, 1)) > 0 {
		return nil, p.errAt(off, "%s is %s dollars per million tokens, more than any model costs; is it per token?", what, text)
	}
	return r, nil
}

// describe names a JSON token's kind for a message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		if v == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}
