package spdy

// headerDictionaryV2 seeds both header compression contexts of a SPDY/2
// session ("Name/Value header block format" in SPDY Protocol - Draft 2). The
// draft prints it as one string, wrapped at 74 characters, and says the
// dictionary includes the terminating NUL. Its quirks ("if-unmodifiedsince",
// "warning" twice) are the draft's and must stay: the zlib stream announces
// the dictionary's Adler-32, so a test pins its length (907) and that id
// (0xdfa251b2), which is also what node-spdy's copy gives.
var headerDictionaryV2 = []byte("" +
	"optionsgetheadpostputdeletetraceacceptaccept-charsetaccept-encodingaccept-" +
	"languageauthorizationexpectfromhostif-modified-sinceif-matchif-none-matchi" +
	"f-rangeif-unmodifiedsincemax-forwardsproxy-authorizationrangerefererteuser" +
	"-agent10010120020120220320420520630030130230330430530630740040140240340440" +
	"5406407408409410411412413414415416417500501502503504505accept-rangesageeta" +
	"glocationproxy-authenticatepublicretry-afterservervarywarningwww-authentic" +
	"ateallowcontent-basecontent-encodingcache-controlconnectiondatetrailertran" +
	"sfer-encodingupgradeviawarningcontent-languagecontent-lengthcontent-locati" +
	"oncontent-md5content-rangecontent-typeetagexpireslast-modifiedset-cookieMo" +
	"ndayTuesdayWednesdayThursdayFridaySaturdaySundayJanFebMarAprMayJunJulAugSe" +
	"pOctNovDecchunkedtext/htmlimage/pngimage/jpgimage/gifapplication/xmlapplic" +
	"ation/xhtmltext/plainpublicmax-agecharset=iso-8859-1utf-8gzipdeflateHTTP/1" +
	".1statusversionurl\x00")

// HeaderDictionaryV2 returns a copy of the zlib dictionary of SPDY/2 header
// blocks (NUL included), for tools that build raw draft-2 header blocks.
func HeaderDictionaryV2() []byte { return append([]byte(nil), headerDictionaryV2...) }
