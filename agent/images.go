package agent

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/gif" // decoders for tool images
	"image/jpeg"
	_ "image/png"

	"github.com/browseragent/browseragent/media"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // chrome-devtools-mcp can return webp screenshots
)

// Limits for images sent to the model. 1568 px on the long side is where
// vision models stop gaining detail and start charging more tokens.
const (
	maxImageSide  = 1568
	maxImageBytes = 512 << 10 // larger images are re-encoded as JPEG
	jpegQuality   = 80
	// imageTokens is a conservative estimate of what one image costs in
	// context (a 1568 px image is ~1600 tokens on the larger providers).
	imageTokens = 1600
)

// prepareImage makes an image fit for the model: downscaled to at most
// maxImageSide on the long side and re-encoded as JPEG when it is large. It
// returns the data URL to send. ok is false when the data is not an image
// the model could read.
func prepareImage(img media.Image) (dataURL string, ok bool) {
	src, format, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return "", false
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	mime := "image/" + format
	data := img.Data
	if long := max(w, h); long > maxImageSide || len(data) > maxImageBytes || format == "webp" {
		if long > maxImageSide {
			w, h = w*maxImageSide/long, h*maxImageSide/long
		}
		dst := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return "", false
		}
		data, mime = buf.Bytes(), "image/jpeg"
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), true
}
