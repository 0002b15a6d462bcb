package grammar

// slab hands out nodes of one type from chunks: one allocation for many
// nodes (#20). Without reuse, a chunk is let go once handed out, and its
// nodes live as long as the tree that holds them. With reuse (Check,
// which keeps no step), reset makes every chunk's nodes available again:
// a step's nodes are garbage once the step is checked, so the next step
// is built in the same memory and a whole file is checked in the memory
// of its largest step rather than of all of them.
type slab[T any] struct {
	chunks [][]T // with reuse, every chunk made; else the current one
	c, i   int   // the chunk in use and its first free node
	reuse  bool
}

// new returns a zeroed node.
func (s *slab[T]) new() *T { return &s.take(1)[0] }

// take returns n zeroed, adjacent nodes (a slice of capacity n).
func (s *slab[T]) take(n int) []T {
	for s.c < len(s.chunks) {
		if ch := s.chunks[s.c]; s.i+n <= len(ch) {
			out := ch[s.i : s.i+n : s.i+n]
			s.i += n
			if s.reuse {
				clear(out)
			}
			return out
		}
		if !s.reuse {
			break
		}
		s.c, s.i = s.c+1, 0
	}
	ch := make([]T, max(nodeChunk, n))
	if s.reuse {
		s.chunks = append(s.chunks, ch)
		s.c = len(s.chunks) - 1
	} else {
		s.chunks = append(s.chunks[:0], ch)
		s.c = 0
	}
	s.i = n
	return ch[:n:n]
}

// reset lets every node handed out be handed out again, with reuse; it
// does nothing without.
func (s *slab[T]) reset() {
	if s.reuse {
		s.c, s.i = 0, 0
	}
}
