package mcpx

import "fmt"

// Guard runs an SDK registration (AddTool, AddResource…), turning the
// panic the SDK raises for a definition it considers invalid into an
// error: one odd definition must not take a server down.
func Guard(register func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	register()
	return nil
}
