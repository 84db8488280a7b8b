package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/extract"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// Paragraphs long enough for statistical sniffing to be sure.
var charsetSamples = []struct {
	name  string
	enc   encoding.Encoding
	label string
	want  string // decoded charset name
	sniff string // the name sniffing reports (GB18030 is GBK's superset)
	title string
	text  string
}{
	{"GBK", simplifiedchinese.GBK, "gbk", "gbk", "gb18030", "中文新闻标题",
		"北京是中华人民共和国的首都，也是全国的政治、文化和国际交往中心。这座城市有三千多年的建城史，留下了故宫、天坛和长城等许多名胜古迹。每年都有大量的游客来到这里参观学习，了解中国的历史和文化。"},
	{"Shift_JIS", japanese.ShiftJIS, "shift_jis", "shift_jis", "shift_jis", "日本語の記事",
		"東京は日本の首都であり、世界でも有数の大都市です。江戸時代から政治と文化の中心として発展してきました。現在では多くの人々が暮らし、毎日たくさんの観光客が訪れています。古い寺や神社と新しい建物が並ぶ町並みは、とても魅力的です。"},
	{"windows-1251", charmap.Windows1251, "windows-1251", "windows-1251", "windows-1251", "Новости дня",
		"Москва является столицей России и крупнейшим городом страны. Здесь находятся Кремль, Красная площадь и многие известные музеи. Каждый год город посещают миллионы туристов, которые хотят увидеть его историю и культуру своими глазами."},
}

// TestCharsets serves the same page encoded in GBK, Shift_JIS and
// windows-1251, declared in the header, in a <meta> tag, or not at all, and
// expects correct UTF-8 every time.
func TestCharsets(t *testing.T) {
	declarations := []string{"header", "meta charset", "meta http-equiv", "late meta", "none"}
	for _, s := range charsetSamples {
		for _, decl := range declarations {
			t.Run(s.name+"/"+decl, func(t *testing.T) {
				head := ""
				switch decl {
				case "meta charset":
					head = `<meta charset="` + s.label + `">`
				case "meta http-equiv":
					head = `<meta http-equiv="Content-Type" content="text/html; charset=` + s.label + `">`
				case "late meta": // past the 1024 bytes the standard prescan reads
					head = "<style>" + strings.Repeat("/* padding */\n", 100) + "</style><meta charset=\"" + s.label + "\">"
				}
				page := "<html><head>" + head + "<title>" + s.title + "</title></head><body><article><p>" +
					s.text + "</p><p>" + s.text + "</p></article></body></html>"
				body, err := s.enc.NewEncoder().String(page)
				if err != nil {
					t.Fatal(err)
				}
				ct := "text/html"
				if decl == "header" {
					ct += "; charset=" + s.label
				}
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", ct)
					w.Write([]byte(body))
				}))
				defer srv.Close()
				res, err := fetchOnce(context.Background(), srv.URL, nil)
				if err != nil {
					t.Fatal(err)
				}
				type got struct{ Charset, Title, Text string }
				want := got{s.want, s.title, s.text + "\n\n" + s.text}
				if decl == "none" {
					want.Charset = s.sniff
				}
				if diff := cmp.Diff(want, got{res.Charset, res.Title, res.Text()}); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestCharsetLabelMismatch: what the page says loses to bytes that can only
// be one thing.
func TestCharsetLabelMismatch(t *testing.T) {
	latin1, _ := charmap.Windows1252.NewEncoder().String("<p>Café crème, señor</p>")
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("<p>" + strings.Repeat("谷歌收购的人工智能公司", 4) + "</p>")
	tests := []struct {
		name, contentType, body string
		want                    string
		warned                  bool
	}{
		{"UTF-8 labelled ISO-8859-1", "text/html; charset=iso-8859-1", "<p>Café crème, señor</p>", "Café crème, señor", true},
		{"real ISO-8859-1", "text/html; charset=iso-8859-1", latin1, "Café crème, señor", false},
		{"ASCII labelled ISO-8859-1", "text/html; charset=iso-8859-1", "<p>plain</p>", "plain", false},
		{"UTF-8 labelled gb2312", "text/html; charset=gb2312", "<p>" + strings.Repeat("谷歌收购的人工智能公司", 4) + "</p>", strings.Repeat("谷歌收购的人工智能公司", 4), true},
		{"real GBK", "text/html; charset=gbk", gbk, strings.Repeat("谷歌收购的人工智能公司", 4), false},
		{"unknown label falls back to sniffing", "text/html; charset=x-nonsense", "<p>Café crème, señor</p>", "Café crème, señor", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			res, err := fetchOnce(context.Background(), srv.URL, &Options{Extract: extract.Options{Select: "p"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if got := len(res.Warnings) > 0; got != tc.warned {
				t.Errorf("warnings = %q, want some: %v", res.Warnings, tc.warned)
			}
		})
	}
}
