// Package media holds the one image type that tool results share across
// packages. The browser's screenshots, MCP image content and the images a
// tool result carries to the model and the person are all an Image. It
// imports nothing, so every package may import it.
package media
