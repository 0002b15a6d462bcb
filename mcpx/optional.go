package mcpx

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A server may declare a capability (resources, prompts) and still refuse
// one of its list methods with "Method not found": one that declares
// resources but has no templates, say (@executeautomation/database-server
// 1.1.0 refuses resources/templates/list). The lists are optional, so a
// refusal is an empty list and a note, not a failed start.

// refused reports whether err is the server's "Method not found" answer.
func refused(err error) bool {
	var werr *jsonrpc.Error
	return errors.As(err, &werr) && werr.Code == jsonrpc.CodeMethodNotFound
}

// refusedList notes that the server declared capability but refused
// method, which is taken as an empty list.
func (d *Downstream) refusedList(capability, method string) {
	d.notef("it declares %s but answered %s with \"Method not found\"; taken as an empty list", capability, method)
}

// notef keeps a note about the server, which Start prints once every
// server started.
func (d *Downstream) notef(format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf(format, args...))
}
