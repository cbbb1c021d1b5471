-- Tokenizer shared by documents and queries (RU/EN). Why one macro: a document term and a
-- query term can only meet if both went through exactly the same normalisation.
--
--   akw_terms(text)        -> list of index terms: stemmed words and '='-marked exact identifiers
--   akw_chunks(text)       -> whitespace-separated chunks (may hold '')
--   akw_chunk_terms(chunk) -> the terms of one chunk
-- By definition akw_terms(t) = concatenation of akw_chunk_terms(c) over akw_chunks(t). No term
-- spans whitespace, so the build tokenizes each DISTINCT chunk once (a Zipf corpus repeats
-- chunks ~65x at 100k documents) instead of running the regexes over every document.
--
-- Inside a chunk anything that is not a letter or digit splits words, so typographic quotes,
-- «», dashes (U+2010..2015) and … separate words without a list of their own; only ASCII
-- . _ : / - join the parts of an identifier. Letters are explicit code-point ranges (Latin incl.
-- Latin-1/Extended, Greek, Cyrillic, CJK/kana, Hangul): \p{L} costs ~2 ms to compile per regex
-- per query, ten times the ranges. camelCase detection is Latin/Cyrillic.

-- Whitespace incl. NBSP, the U+2000 spaces, narrow/ideographic spaces, zero-width space and BOM.
CREATE OR REPLACE MACRO akw_chunks(t) AS
    string_split(regexp_replace(coalesce(t, ''),
        '[\t\n\r\x{000B}\x{000C}\x{0085}\x{00A0}\x{1680}\x{2000}-\x{200B}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]',
        ' ', 'g'), ' ');

-- Unicode lower case (Cyrillic too) and ё -> е.
CREATE OR REPLACE MACRO akw_lc(t) AS replace(lower(t), 'ё', 'е');

-- camelCase / PascalCase tokens (a lower-case letter right before an upper-case one).
CREATE OR REPLACE MACRO akw_camel(c) AS
    CASE WHEN regexp_matches(c, '[a-zа-яё][A-ZА-ЯЁ]')
         THEN regexp_extract_all(c,
             '[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]*[a-zа-яё][A-ZА-ЯЁ][0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]*')
         ELSE [] END;

-- getHTTPServer -> 'get HTTP Server': the parts become ordinary words (the whole word stays too).
CREATE OR REPLACE MACRO akw_camel_split(c) AS
    regexp_replace(regexp_replace(array_to_string(akw_camel(c), ' '),
        '([a-zа-яё0-9])([A-ZА-ЯЁ])', '\1 \2', 'g'), '([A-ZА-ЯЁ])([A-ZА-ЯЁ][a-zа-яё])', '\1 \2', 'g');

-- Word tokens: runs of letters/digits (snake_case and camelCase also yield their parts).
CREATE OR REPLACE MACRO akw_words(c) AS
    regexp_extract_all(concat(c, ' ', akw_camel_split(c)),
        '[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]+');

-- Identifiers: letter/digit runs joined by inner . _ : / - (IPs, hosts, URLs, paths, skill
-- names, snake_case, versions). Edge punctuation is not part of them ('/etc/x.conf.' = 'etc/x.conf').
CREATE OR REPLACE MACRO akw_ident_full(c) AS
    regexp_extract_all(c,
        '[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]+(?:[._:/-]+[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]+)+');

-- Identifiers plus their '/'- or ':'-separated parts that are identifiers themselves (host of a
-- URL, file and directory names of a path, IP of ip:port) plus camelCase tokens; distinct per chunk.
CREATE OR REPLACE MACRO akw_idents(c) AS
    list_distinct(list_concat(
        akw_ident_full(c),
        regexp_extract_all(array_to_string(akw_ident_full(c), ' '),
            '[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]+(?:[._-]+[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]+)+'),
        akw_camel(c)));

-- RU/EN function words (Snowball-style lists, minus negations that carry meaning in answers,
-- e.g. «не»/«not» stay); question words (who/кто, where/где…) route the query, they do not rank it.
CREATE OR REPLACE MACRO akw_stopwords() AS
    ['a', 'about', 'above', 'after', 'again', 'against', 'all', 'already', 'am', 'an', 'and', 'any',
     'anyone', 'are', 'as', 'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both',
     'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'down', 'during', 'each', 'ever',
     'everything', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her', 'here',
     'hers', 'herself', 'him', 'himself', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself',
     'just', 'me', 'more', 'most', 'my', 'myself', 'now', 'of', 'off', 'on', 'once',
     'only', 'or', 'other', 'our', 'ours', 'ourselves', 'out', 'over', 'own', 'same', 'she', 'should', 'so',
     'some', 'someone', 'something', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them', 'themselves',
     'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up',
     'very', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will',
     'with', 'would', 'you', 'your', 'yours', 'yourself', 'yourselves', 'а', 'без', 'более', 'бы', 'был',
     'была', 'были', 'было', 'быть', 'в', 'вам', 'вас', 'весь', 'во', 'вот', 'все', 'всего', 'всех', 'вы',
     'где', 'да', 'даже', 'для', 'до', 'его', 'ее', 'если', 'есть', 'еще', 'ещё', 'её', 'же', 'за', 'здесь',
     'и', 'из', 'или', 'им', 'их', 'к', 'как', 'какая', 'какие', 'какой', 'когда', 'кто', 'ли', 'либо',
     'мне', 'может', 'мы', 'на', 'над', 'надо', 'наш', 'него', 'нее', 'неё', 'них', 'но',
     'ну', 'о', 'об', 'однако', 'он', 'она', 'они', 'оно', 'от', 'очень', 'по', 'под', 'при', 'с', 'со',
     'так', 'также', 'такой', 'там', 'те', 'тем', 'то', 'того', 'тоже', 'той', 'только', 'том', 'ты', 'у',
     'уже', 'хотя', 'чего', 'чей', 'чем', 'что', 'чтобы', 'чье', 'чья', 'эта', 'эти', 'это', 'я'];

-- One word -> its term: Snowball chain (each stemmer only touches words of its own alphabet,
-- so mixed text works); NULL for stopwords and words over 64 characters (blobs, hashes).
CREATE OR REPLACE MACRO akw_word_term(w) AS
    CASE WHEN length(w) > 64 OR list_contains(akw_stopwords(), akw_lc(w)) THEN NULL
         ELSE stem(stem(akw_lc(w), 'russian'), 'english') END;

-- Identifiers over 200 characters (blobs, long query strings) are not indexed as exact terms.
CREATE OR REPLACE MACRO akw_chunk_terms(c) AS
    list_concat(
        list_filter(list_transform(akw_words(c), w -> akw_word_term(w)), x -> x IS NOT NULL),
        list_transform(list_filter(akw_idents(c), i -> length(i) <= 200), i -> '=' || akw_lc(i)));

CREATE OR REPLACE MACRO akw_terms(t) AS
    flatten(list_transform(akw_chunks(t), c -> akw_chunk_terms(c)));
