package extract

import (
	"bytes"
	"fmt"
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

// A product page prints the product without its customer reviews, even
// when they are most of the page's text (WCXB's product pages leave them
// out); a critic's quote named otherwise, and the reviews on a page that
// sells nothing, stay.
func TestProductReviewsLeftOut(t *testing.T) {
	product := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail 25 Pack","offers":{"@type":"Offer","price":"99.95","priceCurrency":"USD"}}</script>`
	var reviews strings.Builder
	for i, who := range []string{"Meg from Hudson Valley", "Ana from Seattle", "Tom from Bend"} {
		fmt.Fprintf(&reviews, `<div class="review-item"><h3>Review %d</h3><p>Rated 4 out of 5 stars by %s, two years ago.</p>
<p>I took this pack on many short day hikes and it held everything I needed, the straps are comfortable and the pockets easy to reach while walking.</p></div>`, i+1, who)
	}
	description := `<h1>Trail 25 Pack</h1>
<p>Keep your day's gear within easy reach in the Trail 25 pack, designed to fit a wide range of body types with pockets galore.</p>
<p>Its ripstop nylon body has a water repellent finish, and the bottom is recycled nylon that resists abrasion on rocky trails.</p>
<h2>Technical specs</h2><ul><li>Gear capacity: 25 liters</li><li>Weight: 1 lb. 13 oz.</li><li>Frame: internal HDPE framesheet</li></ul>
<button>Add to cart</button>`
	tests := []struct {
		name, head, body string
		want, not        []string
	}{
		{"reviews most of the text", product, description + `<div id="product-reviews-accordion"><h2>Reviews</h2>` + reviews.String() + `</div>`,
			[]string{"pockets galore", "25 liters"}, []string{"short day hikes", "Meg from Hudson Valley"}},
		{"reviews named customerReviews", product, description + `<section id="customerReviews">` + reviews.String() + `</section>`,
			[]string{"pockets galore", "25 liters"}, []string{"short day hikes"}},
		{"a critic's quote stays", product, description + `<div id="editorialReviews"><p>“The best day pack of the year, light and roomy enough for a whole day on the trail.” Outdoor Weekly</p></div>`,
			[]string{"pockets galore", "best day pack of the year"}, nil},
		{"reviews on a page that sells nothing stay", "", `<article><h1>Six hikers on their packs</h1><p>We asked six hikers what they think of the packs they carried all summer long, in the hills and in town.</p>` +
			`<div class="reviews">` + reviews.String() + `</div></article>`,
			[]string{"short day hikes", "Meg from Hudson Valley"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Trail 25 Pack</title>` + tc.head + `</head><body><main>` + tc.body + `</main></body></html>`
			res, err := Extract([]byte(page), "https://shop.example/product/trail-25", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := printedText(res)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q is missing from the printed text:\n%s", w, text)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(text, w) {
					t.Errorf("%q is printed:\n%s", w, text)
				}
			}
		})
	}
}

// A product page prints the product without what its shop puts around
// it: a carousel (a gallery, testimonials, other products), the legal
// fine print, a promotion's banner and the badges on its picture. The
// same blocks on a page that sells nothing stay.
func TestProductAsidesLeftOut(t *testing.T) {
	product := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Linen Dress","offers":{"@type":"Offer","price":"132","priceCurrency":"EUR"}}</script>`
	description := `<h1>Linen Dress</h1>
<p>A strappy dress in three flowing layers of washed linen, with a side zip and a pocket on the right side.</p>
<p>Made to order in our workshop: it takes eight to fourteen days before it is shipped to you.</p>
<ul><li>Material: 100% linen, 170 gsm</li><li>Care: dry clean only</li></ul>
<button>Add to cart</button>`
	testimonials := `<div class="swiper testimonials-carousel"><div class="swiper-wrapper">
<div class="swiper-slide"><p>I bought a blazer suit here and five people at the office asked me about it within an hour.</p><p>Cherry B.</p></div>
<div class="swiper-slide"><p>My third order from this shop, always beautiful pieces and such friendly service.</p><p>Laura D.</p></div></div></div>`
	legal := `<div id="disclaimer"><p>* Colours may vary from the pictures depending on your screen. Images are for illustration purposes only.</p></div>
<div class="footnote-legal"><p>Prices include VAT. Offers cannot be combined with other promotions or discount codes.</p></div>`
	banner := `<div class="promo-banner"><p>Spring sale: twenty percent off every second item in your basket this weekend only!</p></div>
<span class="badge">Best seller of the season</span>`
	tests := []struct {
		name, head, body string
		want, not        []string
	}{
		{"testimonials carousel", product, description + testimonials,
			[]string{"three flowing layers", "Material: 100% linen"}, []string{"blazer suit", "Laura D."}},
		{"legal fine print", product, description + legal,
			[]string{"three flowing layers", "eight to fourteen days"}, []string{"illustration purposes", "combined with other promotions"}},
		{"banner and badge", product, banner + description,
			[]string{"three flowing layers", "dry clean only"}, []string{"Spring sale", "Best seller of the season"}},
		{"a page that sells nothing keeps them", "", `<article><h1>What our customers say</h1><p>We asked our customers what they think of the dresses they wore all summer long, in the city and by the sea.</p>` +
			testimonials + `</article>`,
			[]string{"blazer suit", "Laura D."}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Linen Dress</title>` + tc.head + `</head><body><main>` + tc.body + `</main></body></html>`
			res, err := Extract([]byte(page), "https://shop.example/product/linen-dress", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := printedText(res)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q is missing from the printed text:\n%s", w, text)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(text, w) {
					t.Errorf("%q is printed:\n%s", w, text)
				}
			}
		})
	}
}
