package exitstatus

import (
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, OK},
		{errors.New("plain"), Usage},
		{Usagef("bad %d", 1), Usage},
		{ToolErr(errors.New("down")), Tool},
		{Silent(Failed), Failed},
		{fmt.Errorf("wrapped: %w", Silent(Interrupted)), Interrupted},
	}
	for _, tt := range tests {
		if got := Code(tt.err); got != tt.want {
			t.Errorf("Code(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
	if got := Silent(Tool).Error(); got != "exit 3" {
		t.Errorf("a silent error reads %q", got)
	}
}

func TestSeverity(t *testing.T) {
	order := []int{OK, Failed, Usage, Tool, Interrupted}
	for i := 1; i < len(order); i++ {
		if Severity(order[i]) <= Severity(order[i-1]) {
			t.Errorf("Severity(%d) is not above Severity(%d)", order[i], order[i-1])
		}
	}
}
