package media

// Image is image content of a tool result: a screenshot, an MCP image or
// an image resource.
type Image struct {
	MIME string // e.g. image/png
	Data []byte
}
