package stream

// AppendMembers is appendMembers, for the external fuzz tests.
var AppendMembers = appendMembers
