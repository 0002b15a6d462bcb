package jsondata

import (
	"testing"
	"unicode/utf8"
)

// appendStringByteByByte is the formatter's string writer as it was
// before it became AppendStringAsIs: the reference it must match.
func appendStringByteByByte(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				continue
			}
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func TestAppendStringAsIs(t *testing.T) {
	for _, tc := range appendStringCases {
		t.Run(tc.name, func(t *testing.T) {
			want := string(appendStringByteByByte([]byte("prefix"), tc.in))
			if got := string(AppendStringAsIs([]byte("prefix"), tc.in)); got != want {
				t.Errorf("AppendStringAsIs(%q) = %s, want %s", tc.in, got, want)
			}
			if utf8.ValidString(tc.in) {
				if fixed := string(AppendString([]byte("prefix"), tc.in)); fixed != want {
					t.Errorf("on valid UTF-8 AppendString(%q) = %s, AppendStringAsIs %s", tc.in, fixed, want)
				}
			}
		})
	}
}

func FuzzAppendStringAsIs(f *testing.F) {
	for _, tc := range appendStringCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := string(appendStringByteByByte(nil, s))
		if got := string(AppendStringAsIs(nil, s)); got != want {
			t.Fatalf("AppendStringAsIs(%q) = %s, want %s", s, got, want)
		}
	})
}
