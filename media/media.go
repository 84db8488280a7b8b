// Package media holds the content types tool results share across
// packages: the browser's screenshots, MCP image content and the images a
// tool result carries to the model and the person are one Image. It
// imports nothing, so every package may import it.
package media

// Image is image content of a tool result: a screenshot, an MCP image or
// an image resource.
type Image struct {
	MIME string // e.g. image/png
	Data []byte
}
