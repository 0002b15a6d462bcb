// Package jsondata is the JSON data model that replay evaluates asserts
// and binds against.
//
// A parsed document is made of nil (null), bool, Number, string, []any and
// *Object. Objects keep their members in document order, so a value printed
// back (in a failure message, or inserted into a template) reads the way the
// server sent it; numbers keep their text, and compare by value the way
// JavaScript numbers do.
package jsondata
