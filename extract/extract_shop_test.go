package extract

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A product's JSON-LD often carries its reviews as Reviews: the page is
// still a product, and a Review of its own is still an article.
func TestProductWithReviewsIsAProduct(t *testing.T) {
	product := `{"@context":"https://schema.org","@type":"Product","name":"Kettle","review":[{"@type":"Review","reviewBody":"Boils fast."}],"offers":{"@type":"Offer","price":"40"}}`
	review := `{"@context":"https://schema.org","@type":"Review","itemReviewed":{"@type":"Product","name":"Kettle"},"reviewBody":"We tested it for a month."}`
	tests := []struct {
		name, ld, body string
		want           PageType
	}{
		{"product with reviews, sold here", product, `<button>Add to cart</button>`, PageProduct},
		{"product with reviews, og:type product", product, `<meta property="og:type" content="product">`, PageProduct},
		{"a review of a product", review, `<p>Our verdict.</p>`, PageArticle},
		{"reviews of a product nothing sells", product, `<p>Our verdict.</p>`, PageArticle},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><script type="application/ld+json">` + tc.ld + `</script></head><body>` + tc.body + `</body></html>`
			doc, err := html.Parse(strings.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := classifyPage(doc, "https://shop.example/kettle", prepareScripts(doc)); got != tc.want {
				t.Errorf("read as %s, want %s", got, tc.want)
			}
		})
	}
}

// A product page's reading leaves out the other products, the controls on
// the cards and a repeated description; what is sold stays.
func TestPruneShopReading(t *testing.T) {
	page := `<div>
<h1>Wool Runner</h1>
<div class="tab"><p>A soft merino wool sneaker for every day, light and warm.</p></div>
<div class="accordion"><p>A soft merino wool sneaker for every day, light and warm.</p></div>
<ul><li>Upper: merino wool</li>
<li>Sole: sugarcane foam</li></ul>
<a href="#">Add to wishlist</a>
<section><h2>You may also like</h2><div><a href="/tree">Tree Runner</a> $98</div><div><a href="/dash">Dasher</a> $125</div></section>
<div class="product-recommendations"><a href="/lounger">Lounger</a> $95</div>
</div>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	root := findFirst(doc, atom.Div)
	pruneShopReading(root, PageProduct)
	var b bytes.Buffer
	for _, line := range strings.Split(textOf(root), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString(line + "\n")
		}
	}
	want := "Wool Runner\nA soft merino wool sneaker for every day, light and warm.\nUpper: merino wool\nSole: sugarcane foam\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
