package stream

// AppendMembers is appendMembers, for the external fuzz tests.
var AppendMembers = appendMembers

// LocateAll is locateAll, for the external fuzz tests.
const LocateAll = locateAll
