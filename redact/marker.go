package redact

import "strings"

// markerOpen starts every placeholder the redactor writes: Redacted, and
// «redacted:NAME» for the value of the environment variable NAME.
const markerOpen = "«redacted"

// maxMarkerName bounds the NAME of a «redacted:NAME» placeholder; a longer
// run of text is not one.
const maxMarkerName = 256

// Marker is one redaction placeholder inside a string: s[Start:End] is the
// placeholder, and Name the environment variable it stands for ("" for
// Redacted, a secret found by its shape or its key).
type Marker struct {
	Start, End int
	Name       string
}

// NamedRedacted returns the placeholder the redactor writes for the value
// of the environment variable name.
func NamedRedacted(name string) string { return markerOpen + ":" + name + "»" }

// Markers appends to out the redaction placeholders in s, in order: the
// exact text Redacted, or «redacted:NAME» with a NAME of 1 to 256
// characters holding no «, », line break or control character. Look-alikes
// («redacted, «redacted:», «Redacted») are not placeholders.
func Markers(s string, out []Marker) []Marker {
	for off := 0; ; {
		start, end, name, ok := nextMarker(s, off)
		if !ok {
			return out
		}
		m := Marker{Start: start, End: end}
		if name > 0 {
			m.Name = s[name : end-len("»")]
		}
		out = append(out, m)
		off = end
	}
}

// nextMarker finds the first placeholder in s at or after off: its start
// and end, and where its NAME starts (0 for the unnamed one). It keeps no
// part of s, so a caller that only asks whether there is one lets s stay
// where it is.
func nextMarker(s string, off int) (start, end, name int, ok bool) {
	for {
		i := strings.Index(s[off:], markerOpen)
		if i < 0 {
			return 0, 0, 0, false
		}
		start = off + i
		off = start + len(markerOpen)
		rest := s[off:]
		switch {
		case strings.HasPrefix(rest, "»"):
			return start, off + len("»"), 0, true
		case strings.HasPrefix(rest, ":"):
			if n := markerName(rest[1:]); n > 0 {
				return start, off + 1 + n + len("»"), off + 1, true
			}
		}
	}
}

// markerName returns the length of the NAME that s starts with, up to its
// closing », or 0 when s does not start with one.
func markerName(s string) int {
	// Only a name's length is searched for its end, so text with many
	// unclosed «redacted: is read once, not once per opening.
	if len(s) > maxMarkerName+len("»") {
		s = s[:maxMarkerName+len("»")]
	}
	end := strings.Index(s, "»")
	if end <= 0 || end > maxMarkerName {
		return 0
	}
	for _, r := range s[:end] {
		if r < 0x20 || r == 0x7f || r == '«' {
			return 0
		}
	}
	return end
}

// HasMarker reports whether s holds a redaction placeholder.
func HasMarker(s string) bool {
	if !strings.Contains(s, markerOpen) {
		return false
	}
	_, _, _, ok := nextMarker(s, 0)
	return ok
}

// InputName is the input variable a skill compiled from the trace sends
// in the placeholder's place when it is «redacted:NAME»: NAME in lower
// case, each run of other characters one _, at most 40 characters, never
// starting with a digit (PAYMENTS_TOKEN → payments_token); "" for the
// unnamed placeholder or a NAME with no letter or digit.
func (m Marker) InputName() string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(m.Name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
			if b.Len() >= 40 {
				break
			}
			continue
		}
		under = true
	}
	out := b.String()
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "v_" + out
	}
	return out
}
