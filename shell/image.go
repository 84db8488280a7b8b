package shell

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"github.com/browseragent/browseragent/media"
)

// imageProtocol says which inline image protocol the terminal speaks: the
// kitty graphics protocol, iTerm2's OSC 1337, or none. tmux and screen pass
// neither through without configuration, so they count as none.
func imageProtocol(getenv func(string) string) string {
	if getenv("TMUX") != "" || strings.HasPrefix(getenv("TERM"), "screen") {
		return ""
	}
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || getenv("TERM") == "xterm-kitty" || getenv("TERM_PROGRAM") == "ghostty":
		return "kitty"
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("TERM_PROGRAM") == "WezTerm" || getenv("LC_TERMINAL") == "iTerm2":
		return "iterm"
	}
	return ""
}

// showImage draws img inline when the terminal can; the file path was
// printed already either way.
func (s *Shell) showImage(img media.Image) {
	if !s.p.tty {
		return
	}
	if seq := inlineImage(imageProtocol(os.Getenv), img); seq != "" {
		s.p.Text(seq)
	}
}

// inlineImage is the escape sequence that shows img, or "".
func inlineImage(proto string, img media.Image) string {
	data := base64.StdEncoding.EncodeToString(img.Data)
	switch proto {
	case "iterm":
		return fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;preserveAspectRatio=1:%s\a", len(img.Data), data)
	case "kitty":
		if img.MIME != "image/png" {
			return "" // kitty's f=100 is PNG only
		}
		var b strings.Builder
		for i := 0; i < len(data); i += 4096 {
			chunk := data[i:min(i+4096, len(data))]
			more := 0
			if i+4096 < len(data) {
				more = 1
			}
			if i == 0 {
				fmt.Fprintf(&b, "\x1b_Ga=T,f=100,m=%d;%s\x1b\\", more, chunk)
			} else {
				fmt.Fprintf(&b, "\x1b_Gm=%d;%s\x1b\\", more, chunk)
			}
		}
		return b.String()
	}
	return ""
}
