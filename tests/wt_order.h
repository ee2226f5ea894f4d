/* tests/wt_order.h - host models of the sum ORDER the manuals state, in T arithmetic, for tests
   that compare float sums with the device to the bit.

   - wt_down_tree_model(x, c): what the first lane of a shuffle-down tree over x[0..c-1] gets
     (warp_reduce.cuh: rising offsets 1, 2, 4, ...; a lane whose partner lies past c keeps its
     value)
   - wt_block_sum_model(x, n): a block's sum of x[0..n-1] (block_reduce.cuh: up to 32 threads the
     tree; more: lane L's column x[L], x[L + 32], ... by the tree, then the tree over the lanes)
*/
#ifndef WT_ORDER_H
#define WT_ORDER_H

template <typename T> static T wt_down_tree_model(const T *x, int c)
{
    T r[32];
    for (int i = 0; i < c; i++) r[i] = x[i];
    for (int offset = 1; offset < c; offset <<= 1)
        for (int i = 0; i + offset < c; i += 2 * offset) r[i] = r[i] + r[i + offset];
    return r[0];
}

template <typename T> static T wt_block_sum_model(const T *x, int n)
{
    const int lanes = n < 32 ? n : 32;
    T column[32];
    for (int l = 0; l < lanes; l++) {
        T slots[32];
        int count = 0;
        for (int t = l; t < n; t += 32) slots[count++] = x[t];
        column[l] = wt_down_tree_model(slots, count);
    }
    return wt_down_tree_model(column, lanes);
}

#endif /* WT_ORDER_H */
