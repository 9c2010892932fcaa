/** The filter the HTTP bench creates and lists: three keywords, two contexts. */
export const BENCH_FILTER = { title: 'bench', context: ['home', 'public'], keywords_attributes: [{ keyword: 'a' }, { keyword: 'b' }, { keyword: 'c' }] };
