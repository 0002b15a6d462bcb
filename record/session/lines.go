package session

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// readBuffer is the reader's buffer; a line that fits is handed out
// without a copy.
const readBuffer = 256 << 10

// keepLong is the largest long-line buffer a lineReader keeps for reuse.
const keepLong = 1 << 20

// readers recycles line readers, so a scan of thousands of transcripts
// does not allocate a read buffer for each.
var readers = sync.Pool{New: func() any { return &lineReader{r: bufio.NewReaderSize(nil, readBuffer)} }}

// DefaultMaxLine is the longest line the reader decodes unless
// Options.MaxLine says otherwise; a longer one is skipped and counted.
const DefaultMaxLine = 64 << 20

// lineReader hands out one line at a time, newline removed. Memory is
// bounded by the longest line kept (at most max bytes), whatever the size
// of the input.
type lineReader struct {
	r    *bufio.Reader
	long []byte // reused for lines longer than the buffer
	max  int
	err  error // a read error other than EOF, kept for the caller
}

// newLineReader returns a reader of r's lines; release it when done.
func newLineReader(r io.Reader, max int) *lineReader {
	lr := readers.Get().(*lineReader)
	lr.r.Reset(r)
	lr.max, lr.err = max, nil
	return lr
}

// release returns the reader to the pool; the lines it handed out are no
// longer valid.
func (lr *lineReader) release() {
	lr.r.Reset(nil)
	if cap(lr.long) > keepLong {
		lr.long = nil
	}
	readers.Put(lr)
}

// line is one line of input.
type line struct {
	text []byte // valid until the next call to next
	// last is set on a final line that had no newline: a writer may have
	// been cut off in the middle of it.
	last    bool
	tooLong bool // longer than max; text is nil
	size    int  // bytes consumed, newline included
}

// next returns the next line, or ok == false at the end of the input (or
// on a read error, kept in lr.err).
func (lr *lineReader) next() (l line, ok bool) {
	frag, err := lr.r.ReadSlice('\n')
	l.size = len(frag)
	if err == nil {
		l.text = frag[:len(frag)-1]
		return l, true
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		return lr.longLine(frag)
	}
	return lr.end(frag, err)
}

// end handles the input's final fragment.
func (lr *lineReader) end(frag []byte, err error) (line, bool) {
	if !errors.Is(err, io.EOF) {
		lr.err = err
	}
	if len(frag) == 0 {
		return line{}, false
	}
	return line{text: frag, last: true, size: len(frag)}, true
}

// longLine gathers a line that did not fit the buffer, or steps over it
// when it passes max.
func (lr *lineReader) longLine(first []byte) (line, bool) {
	l := line{size: len(first)}
	lr.long = append(lr.long[:0], first...)
	for {
		frag, err := lr.r.ReadSlice('\n')
		l.size += len(frag)
		if !l.tooLong {
			if len(lr.long)+len(frag) > lr.max {
				l.tooLong = true
				lr.long = lr.long[:0]
			} else {
				lr.long = append(lr.long, frag...)
			}
		}
		switch {
		case err == nil:
			if !l.tooLong {
				l.text = lr.long[:len(lr.long)-1]
			}
			return l, true
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		if !errors.Is(err, io.EOF) {
			lr.err = err
		}
		l.last = true
		if !l.tooLong {
			l.text = lr.long
		}
		return l, true
	}
}
