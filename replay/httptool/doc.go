// Package httptool provides the builtin HTTP tools of replay:
//
//	http.get  {"url": "...", "headers": {...}}
//	http.post {"url": "...", "headers": {...}, "body": ...}
//
// headers is optional and maps names to string values. A string body is
// sent as is (Content-Type text/plain;charset=UTF-8 unless a header sets
// one); any other JSON body is sent as compact JSON with Content-Type
// application/json unless a header sets one. Other argument keys are
// ignored. Each call has a 15 second timeout. The observation's header
// names are lower-cased and repeated headers joined with ", ".
package httptool
