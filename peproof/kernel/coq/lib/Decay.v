(** * Decay: RoPE's long-term decay bound [B_d(k)], stated once

    Logical path [PEProof.Decay].  [peproof.rope.DecayBound(d, k, base)] (Su et al. 2021,
    section 3.4.3) is, by its definition ([peproof.rope.decay_bound_expr]),
    [(2/d) Sum(sqrt(re_j^2 + im_j^2), (j, 1, d/2))] with the partial sums
    [re_j = Sum(cos(k theta_l), (l, 0, j - 1))], [im_j = Sum(sin(k theta_l), (l, 0, j - 1))]
    and the frequencies [theta_l = base ** (-2 l / d)].  SymPy builds it only for an even
    integer [d >= 2] and an exact [base > 1]; for every real [k] all of its terms are defined
    (a positive base, square roots of sums of squares), so its meaning is [odecay]: [Some] of
    [decay_bound] when [k] is defined, [None] when [k] is not.

    For the proof scripts: [decay_bound_run] (the same value as one pass of running sums,
    [drun]), [decay_bound_0] (the value at [k = 0]: [(d + 2) / 4]) and the tactic [pe_decay]
    (a closed comparison of values of [decay_bound]: each running sum replaced by a variable
    with the enclosure [interval_intro] certifies, then one [interval] call).
*)

From Coq Require Import ZArith Reals Lia Lra.
From Interval Require Import Tactic.
From Interval Require Import Interval.Interval Interval.Float_full Float.Primitive_ops Real.Xreal.
From PEProof Require Import Defs Sem.
Open Scope R_scope.

Definition decay_theta (d : Z) (base : R) (l : Z) : R := rpow base (- (2 * IZR l) / IZR d).
Definition decay_re (d : Z) (base k : R) (j : Z) : R :=
  zsum 0 (j - 1) (fun l => cos (k * decay_theta d base l)).
Definition decay_im (d : Z) (base k : R) (j : Z) : R :=
  zsum 0 (j - 1) (fun l => sin (k * decay_theta d base l)).
Definition decay_bound (d : Z) (base k : R) : R :=
  2 / IZR d * zsum 1 (d / 2) (fun j => sqrt (decay_re d base k j ^ 2 + decay_im d base k j ^ 2)).

(** The statement language's function ([DecayBound(d, k, base)], [d] and [base] literals). *)
Definition odecay (d : Z) (base : R) (k : oR) : oR := olift (decay_bound d base) k.

Lemma odecay_some : forall d base k, odecay d base (Some k) = Some (decay_bound d base k).
Proof. reflexivity. Qed.

Lemma odecay_none : forall d base, odecay d base None = None.
Proof. reflexivity. Qed.

(** ** One pass of running sums *)
Fixpoint drun (f : Z -> R) (l : Z) (n : nat) (re im : R) : R :=
  match n with
  | O => 0
  | S m => sqrt ((re + cos (f l)) ^ 2 + (im + sin (f l)) ^ 2)
           + drun f (l + 1) m (re + cos (f l)) (im + sin (f l))
  end.

Lemma drun_zsum : forall f n l re im, (0 <= l)%Z ->
  re = zsum 0 (l - 1) (fun i => cos (f i)) -> im = zsum 0 (l - 1) (fun i => sin (f i)) ->
  drun f l n re im = zsum (l + 1) (l + Z.of_nat n) (fun j =>
    sqrt (zsum 0 (j - 1) (fun i => cos (f i)) ^ 2 + zsum 0 (j - 1) (fun i => sin (f i)) ^ 2)).
Proof.
  intros f n; induction n as [|n IH]; intros l re im Hl Hre Him; simpl drun.
  - replace (l + Z.of_nat 0)%Z with (l + 1 - 1)%Z by lia; rewrite zsum_empty; reflexivity.
  - assert (Er : re + cos (f l) = zsum 0 l (fun i => cos (f i))).
    { rewrite Hre, (zsum_succ 0 l); replace (l - 1)%Z with (l - 1)%Z by lia; reflexivity. }
    assert (Ei : im + sin (f l) = zsum 0 l (fun i => sin (f i))).
    { rewrite Him, (zsum_succ 0 l); reflexivity. }
    rewrite (IH (l + 1)%Z) by (try lia; replace (l + 1 - 1)%Z with l by lia; assumption).
    rewrite (zsum_first (l + 1)); replace (l + 1 - 1)%Z with l by lia.
    rewrite Er, Ei; f_equal; f_equal; lia.
Qed.

Lemma decay_bound_run : forall d base k, (0 <= d)%Z ->
  decay_bound d base k = 2 / IZR d * drun (fun l => k * decay_theta d base l) 0
                                          (Z.to_nat (d / 2)) 0 0.
Proof.
  intros d base k Hd; unfold decay_bound, decay_re, decay_im.
  rewrite (drun_zsum _ _ 0); [| lia | rewrite zsum_empty; reflexivity
                                 | rewrite zsum_empty; reflexivity].
  rewrite Z2Nat.id by (apply Z.div_pos; lia); reflexivity.
Qed.

(** ** The value at [k = 0] *)
Lemma zsum_id : forall n : nat, zsum 1 (Z.of_nat n) (fun j => IZR j) = INR n * (INR n + 1) / 2.
Proof.
  induction n as [|n IH].
  - simpl; rewrite (zsum_empty 1); lra.
  - rewrite Nat2Z.inj_succ, zsum_succ; replace (Z.succ (Z.of_nat n) - 1)%Z with (Z.of_nat n)
      by lia.
    rewrite IH, succ_IZR, <- INR_IZR_INZ, S_INR; lra.
Qed.

Lemma decay_bound_0 : forall h base, (0 < h)%Z ->
  decay_bound (2 * h) base 0 = (IZR (2 * h) + 2) / 4.
Proof.
  intros h base Hh; unfold decay_bound, decay_re, decay_im.
  replace (2 * h / 2)%Z with h by (rewrite Z.mul_comm, Z.div_mul; lia).
  rewrite (zsum_ext 1 h _ (fun j => IZR j)); [ | lia | ].
  - rewrite <- (Z2Nat.id h) by lia; rewrite zsum_id, mult_IZR, <- INR_IZR_INZ.
    assert (0 < INR (Z.to_nat h)) by (apply lt_0_INR; lia). field; lra.
  - intros j Hj.
    rewrite (zsum_ext_all 0 (j - 1) _ (fun _ => 1)) by (intros; rewrite Rmult_0_l, cos_0; reflexivity).
    rewrite (zsum_ext_all 0 (j - 1) (fun l => sin _) (fun _ => 0))
      by (intros; rewrite Rmult_0_l, sin_0; reflexivity).
    rewrite !zsum_const; replace (j - 1 - 0 + 1)%Z with j by lia.
    rewrite Rmult_0_r, Rmult_1_r, pow_i, Rplus_0_r by lia.
    apply sqrt_pow2; apply IZR_le; lia.
Qed.

(** ** The script: closed comparisons of values of [decay_bound] *)

(** The pass with an accumulator: [dacc f l n re im acc = acc + drun f l n re im]. *)
Fixpoint dacc (f : Z -> R) (l : Z) (n : nat) (re im acc : R) : R :=
  match n with
  | O => acc
  | S m => dacc f (l + 1) m (re + cos (f l)) (im + sin (f l))
                (acc + sqrt ((re + cos (f l)) ^ 2 + (im + sin (f l)) ^ 2))
  end.

Lemma dacc_drun : forall f n l re im acc, dacc f l n re im acc = acc + drun f l n re im.
Proof.
  intros f n; induction n as [|n IH]; intros l re im acc; simpl; [ring|].
  rewrite IH; ring.
Qed.

Lemma decay_bound_acc : forall d base k, (0 <= d)%Z ->
  decay_bound d base k = 2 / IZR d * dacc (fun l => k * decay_theta d base l) 0
                                          (Z.to_nat (d / 2)) 0 0 0.
Proof. intros; rewrite dacc_drun, Rplus_0_l; apply decay_bound_run; assumption. Qed.

Lemma dacc_S : forall f l m re im acc, dacc f l (S m) re im acc =
  dacc f (l + 1) m (re + cos (f l)) (im + sin (f l))
       (acc + sqrt ((re + cos (f l)) ^ 2 + (im + sin (f l)) ^ 2)).
Proof. reflexivity. Qed.

Lemma dacc_O : forall f l re im acc, dacc f l O re im acc = acc.
Proof. reflexivity. Qed.

Lemma pe_decay_lt_sub : forall a b, 0 < b - a -> a < b.
Proof. intros; lra. Qed.

Lemma pe_decay_le_sub : forall a b, 0 <= b - a -> a <= b.
Proof. intros; lra. Qed.

(** ** Values of [decay_bound] by computation

    [idecay] runs [dacc]'s pass in CoqInterval's interval arithmetic on primitive floats (its
    [FloatIntervalFull] operations, each proved to enclose the real operation); [idecay_correct]
    says its result encloses [decay_bound d base k] when its arguments enclose [base] and [k].
    A comparison of two closed terms is then one boolean, [ilt] or [ile], computed by the VM
    ([pe_decay_vm]): a few milliseconds for a value of [B_256], against a few seconds for
    [pe_decay]'s 3 [interval_intro] calls per frequency.  The kernel re-runs the computation at
    [Qed] (the cast [vm_compute] leaves in the proof). *)
Module PEI := FloatIntervalFull PrimitiveFloat.

Definition inR (xi : PEI.type) (x : R) : Prop := contains (PEI.convert xi) (Xreal x).

Section IEval.
Variable prec : PEI.precision.

Lemma inR_add : forall xi yi x y, inR xi x -> inR yi y -> inR (PEI.add prec xi yi) (x + y).
Proof. intros xi yi x y Hx Hy; exact (PEI.add_correct prec xi yi _ _ Hx Hy). Qed.
Lemma inR_sub : forall xi yi x y, inR xi x -> inR yi y -> inR (PEI.sub prec xi yi) (x - y).
Proof. intros xi yi x y Hx Hy; exact (PEI.sub_correct prec xi yi _ _ Hx Hy). Qed.
Lemma inR_mul : forall xi yi x y, inR xi x -> inR yi y -> inR (PEI.mul prec xi yi) (x * y).
Proof. intros xi yi x y Hx Hy; exact (PEI.mul_correct prec xi yi _ _ Hx Hy). Qed.
Lemma inR_neg : forall xi x, inR xi x -> inR (PEI.neg xi) (- x).
Proof. intros xi x Hx; exact (PEI.neg_correct xi _ Hx). Qed.
Lemma inR_div : forall xi yi x y, y <> 0 -> inR xi x -> inR yi y -> inR (PEI.div prec xi yi) (x / y).
Proof.
  intros xi yi x y Hy0 Hx Hy; generalize (PEI.div_correct prec xi yi _ _ Hx Hy).
  unfold inR, Xdiv'; simpl; rewrite (is_zero_false y Hy0); exact (fun h => h).
Qed.
Lemma inR_abs : forall xi x, inR xi x -> inR (PEI.abs xi) (Rabs x).
Proof. intros xi x Hx; exact (PEI.abs_correct xi _ Hx). Qed.
Lemma inR_cos : forall xi x, inR xi x -> inR (PEI.cos prec xi) (cos x).
Proof. intros xi x Hx; exact (PEI.cos_correct prec xi _ Hx). Qed.
Lemma inR_sin : forall xi x, inR xi x -> inR (PEI.sin prec xi) (sin x).
Proof. intros xi x Hx; exact (PEI.sin_correct prec xi _ Hx). Qed.
Lemma inR_exp : forall xi x, inR xi x -> inR (PEI.exp prec xi) (exp x).
Proof. intros xi x Hx; exact (PEI.exp_correct prec xi _ Hx). Qed.
Lemma inR_sqrt : forall xi x, inR xi x -> inR (PEI.sqrt prec xi) (sqrt x).
Proof. intros xi x Hx; exact (PEI.sqrt_correct prec xi _ Hx). Qed.
Lemma inR_sqr : forall xi x, inR xi x -> inR (PEI.sqr prec xi) (x ^ 2).
Proof.
  intros xi x Hx; replace (x ^ 2) with (Rsqr x) by (unfold Rsqr; ring).
  exact (PEI.sqr_correct prec xi _ Hx).
Qed.
Lemma inR_ln : forall xi x, 0 < x -> inR xi x -> inR (PEI.ln prec xi) (ln x).
Proof.
  intros xi x Hx0 Hx; generalize (PEI.ln_correct prec xi _ Hx).
  unfold inR, Xln'; simpl; rewrite (is_positive_true x Hx0); exact (fun h => h).
Qed.
Lemma inR_fromZ : forall z, inR (PEI.fromZ prec z) (IZR z).
Proof. intros z; exact (PEI.fromZ_correct prec z). Qed.
Lemma inR_zero : inR PEI.zero 0.
Proof. unfold inR; rewrite PEI.zero_correct; simpl; lra. Qed.

(** One pass of [dacc] in interval arithmetic. *)
Fixpoint iacc (ki lbi di : PEI.type) (l : Z) (n : nat) (re im acc : PEI.type) : PEI.type :=
  match n with
  | O => acc
  | S m =>
      let a := PEI.mul prec ki (PEI.exp prec
                 (PEI.mul prec (PEI.div prec (PEI.fromZ prec (- (2 * l))) di) lbi)) in
      let re' := PEI.add prec re (PEI.cos prec a) in
      let im' := PEI.add prec im (PEI.sin prec a) in
      iacc ki lbi di (l + 1) m re' im'
           (PEI.add prec acc (PEI.sqrt prec (PEI.add prec (PEI.sqr prec re') (PEI.sqr prec im'))))
  end.

Lemma iacc_correct : forall k base d ki lbi di,
  inR ki k -> inR lbi (ln base) -> inR di (IZR d) -> IZR d <> 0 ->
  forall n l rei imi acci re im acc, inR rei re -> inR imi im -> inR acci acc ->
  inR (iacc ki lbi di l n rei imi acci) (dacc (fun l => k * decay_theta d base l) l n re im acc).
Proof.
  intros k base d ki lbi di Hk Hb Hd Hd0 n; induction n as [|n IH];
    intros l rei imi acci re im acc Hre Him Hacc; [exact Hacc|].
  rewrite dacc_S; cbn [iacc]; cbv beta.
  assert (Ha : inR (PEI.mul prec ki (PEI.exp prec (PEI.mul prec
             (PEI.div prec (PEI.fromZ prec (- (2 * l))) di) lbi))) (k * decay_theta d base l)).
  { unfold decay_theta, rpow, Rpower. apply inR_mul; [exact Hk|]. apply inR_exp.
    apply inR_mul; [|exact Hb].
    replace (- (2 * IZR l)) with (IZR (- (2 * l))) by (rewrite opp_IZR, mult_IZR; reflexivity).
    apply inR_div; [exact Hd0 | apply inR_fromZ | exact Hd]. }
  apply IH.
  - apply inR_add; [exact Hre | apply inR_cos; exact Ha].
  - apply inR_add; [exact Him | apply inR_sin; exact Ha].
  - apply inR_add; [exact Hacc|]. apply inR_sqrt. apply inR_add; apply inR_sqr.
    + apply inR_add; [exact Hre | apply inR_cos; exact Ha].
    + apply inR_add; [exact Him | apply inR_sin; exact Ha].
Qed.

Definition idecay (d : Z) (bi ki : PEI.type) : PEI.type :=
  let di := PEI.fromZ prec d in
  PEI.mul prec (PEI.div prec (PEI.fromZ prec 2) di)
    (iacc ki (PEI.ln prec bi) di 0 (Z.to_nat (d / 2)) PEI.zero PEI.zero PEI.zero).

Lemma idecay_correct : forall d base k bi ki, (0 < d)%Z -> 0 < base ->
  inR bi base -> inR ki k -> inR (idecay d bi ki) (decay_bound d base k).
Proof.
  intros d base k bi ki Hd Hb Hbi Hki; rewrite decay_bound_acc by lia; unfold idecay.
  assert (Hd0 : IZR d <> 0) by (apply not_0_IZR; lia).
  apply inR_mul; [apply inR_div; [exact Hd0 | apply inR_fromZ | apply inR_fromZ]|].
  apply (iacc_correct k base d); try apply inR_fromZ; try apply inR_zero; try assumption.
  apply inR_ln; assumption.
Qed.

Definition ilt (xi yi : PEI.type) : bool :=
  match PEI.sign_strict (PEI.sub prec yi xi) with Xgt => true | _ => false end.
Definition ile (xi yi : PEI.type) : bool :=
  match PEI.sign_large (PEI.sub prec yi xi) with Xgt | Xeq => true | _ => false end.

Lemma ilt_correct : forall xi yi x y, inR xi x -> inR yi y -> ilt xi yi = true -> x < y.
Proof.
  intros xi yi x y Hx Hy; unfold ilt.
  generalize (PEI.sign_strict_correct (PEI.sub prec yi xi)).
  destruct (PEI.sign_strict (PEI.sub prec yi xi)); intros H E; try discriminate.
  destruct (H (Xreal (y - x))) as [_ H2]; [exact (inR_sub _ _ _ _ Hy Hx)|]; simpl in H2; lra.
Qed.

Lemma ile_correct : forall xi yi x y, inR xi x -> inR yi y -> ile xi yi = true -> x <= y.
Proof.
  intros xi yi x y Hx Hy; unfold ile.
  generalize (PEI.sign_large_correct (PEI.sub prec yi xi)).
  destruct (PEI.sign_large (PEI.sub prec yi xi)); intros H E; try discriminate.
  - generalize (H (Xreal (y - x)) (inR_sub _ _ _ _ Hy Hx)); intros H2; injection H2; lra.
  - destruct (H (Xreal (y - x))) as [_ H2]; [exact (inR_sub _ _ _ _ Hy Hx)|]; simpl in H2; lra.
Qed.
End IEval.

(** [pe_zlit z] succeeds (returning [tt]) only for an integer literal: a variable, or any
    term that is not made of constructors, would leave the VM an open computation. *)
Ltac pe_poslit p :=
  lazymatch p with xH => constr:(tt) | xO ?q => pe_poslit q | xI ?q => pe_poslit q end.
Ltac pe_zlit z :=
  lazymatch z with Z0 => constr:(tt) | Zpos ?p => pe_poslit p | Zneg ?p => pe_poslit p end.

(** [pe_iv p t]: a proof of [inR p ?i t] for a closed real term [t] of + - * / opposites,
    absolute values, squares, integer literals and values of [decay_bound]; fails on anything
    else (a variable included). *)
Ltac pe_iv p t :=
  lazymatch t with
  | decay_bound ?d ?b ?k =>
      let _ := pe_zlit d in let hb := pe_iv p b in let hk := pe_iv p k in
      constr:(idecay_correct p d b k _ _ ltac:(lia) ltac:(lra) hb hk)
  | ?a + ?b => let ha := pe_iv p a in let hb := pe_iv p b in constr:(inR_add p _ _ a b ha hb)
  | ?a - ?b => let ha := pe_iv p a in let hb := pe_iv p b in constr:(inR_sub p _ _ a b ha hb)
  | ?a * ?b => let ha := pe_iv p a in let hb := pe_iv p b in constr:(inR_mul p _ _ a b ha hb)
  | ?a / ?b => let ha := pe_iv p a in let hb := pe_iv p b in
               constr:(inR_div p _ _ a b ltac:(intro; lra) ha hb)
  | - ?a => let ha := pe_iv p a in constr:(inR_neg _ a ha)
  | Rabs ?a => let ha := pe_iv p a in constr:(inR_abs _ a ha)
  | ?a ^ 2 => let ha := pe_iv p a in constr:(inR_sqr p _ a ha)
  | IZR ?z => let _ := pe_zlit z in constr:(inR_fromZ p z)
  end.

(** A closed comparison [x < y] or [x <= y] decided by one evaluation in the VM. *)
Ltac pe_decay_vm :=
  let p := constr:(53%Z) in
  lazymatch goal with
  | |- ?x < ?y =>
      let hx := pe_iv p x in let hy := pe_iv p y in
      refine (ilt_correct p _ _ x y hx hy _); vm_compute; reflexivity
  | |- ?x <= ?y =>
      let hx := pe_iv p x in let hy := pe_iv p y in
      refine (ile_correct p _ _ x y hx hy _); vm_compute; reflexivity
  | |- ?x > ?y => change (y < x); pe_decay_vm
  | |- ?x >= ?y => change (y <= x); pe_decay_vm
  end.

(** [False] from a hypothesis comparing values of [decay_bound] whose reverse comparison
    [tac] proves ([pe_decay_vm], or [pe_decay] below). *)
Ltac pe_decay_refute_by tac :=
  match goal with
  | H : ?a <= ?b |- False =>
      match a with context [decay_bound] => idtac end; assert (b < a) by tac; lra
  | H : ?a < ?b |- False =>
      match a with context [decay_bound] => idtac end; assert (b <= a) by tac; lra
  end.

Ltac pe_decay_vm_refute := pe_decay_refute_by ltac:(idtac; pe_decay_vm).



(** Every [decay_bound d b k] of the goal as [2 / d * dacc ...] with a literal count. *)
Ltac pe_decay_run :=
  repeat match goal with
  | |- context [decay_bound ?d ?b ?k] => rewrite (decay_bound_acc d b k) by lia
  end;
  repeat match goal with
  | |- context [Z.to_nat ?z] => let n := eval vm_compute in (Z.to_nat z) in
                                change (Z.to_nat z) with n
  end;
  unfold decay_theta, rpow.

Ltac pe_decay_leaf x := first [ is_var x | constr_eq x 0 ].

(** A closed term [t] of the goal becomes a variable [v] with the enclosure [interval_intro]
    certifies (the goal is then proved for every value in it). *)
Ltac pe_decay_enclose t :=
  let v := fresh "pe_v" in let H := fresh "pe_H" in
  interval_intro t as H; revert H; generalize t; intros v H.

(** One step of a pass: the two running sums and the accumulated sum of moduli become
    variables with certified enclosures; the previous ones leave the context. *)
Ltac pe_decay_step :=
  match goal with
  | |- context [dacc ?f ?l (S ?m) ?re ?im ?acc] =>
      pe_decay_leaf re; pe_decay_leaf im; pe_decay_leaf acc;
      rewrite (dacc_S f l m re im acc); cbv beta;
      let l' := eval vm_compute in (l + 1)%Z in change (l + 1)%Z with l';
      match goal with
      | |- context [re + cos ?a] =>
          pe_decay_enclose (re + cos a); pe_decay_enclose (im + sin a);
          match goal with
          | |- context [acc + sqrt ?s] => pe_decay_enclose (acc + sqrt s)
          end
      end;
      try clear dependent re; try clear dependent im; try clear dependent acc
  end.

Ltac pe_decay :=
  pe_decay_run; repeat pe_decay_step; rewrite ?dacc_O;
  lazymatch goal with
  | |- _ < _ => apply pe_decay_lt_sub
  | |- _ <= _ => apply pe_decay_le_sub
  | |- _ => idtac
  end;
  first [ solve [interval] | solve [interval with (i_prec 60)] ].

(** [decay_bound d b 0] for a literal even [d] by [decay_bound_0], then [lra]. *)
Ltac pe_decay_zero :=
  repeat match goal with
  | |- context [decay_bound ?d ?b 0] =>
      let h := eval vm_compute in (d / 2)%Z in
      rewrite (decay_bound_0 h b ltac:(lia) : decay_bound d b 0 = _)
  end;
  rewrite ?mult_IZR; lra.

(** [False] from a hypothesis comparing values of [decay_bound] that [pe_decay] refutes. *)
Ltac pe_decay_refute := pe_decay_refute_by ltac:(idtac; pe_decay).
